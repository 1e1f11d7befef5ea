import { idParams, page, pageQuery } from '../../../../shared/schemas/common.ts';
import { apiKeySchema, createdKeySchema, createKeyBody } from '../../../../shared/schemas/keys.ts';
import { storedWithout } from '../../http/idempotency.ts';
import type { RegisterRoutes } from '../../http/types.ts';

const tags = ['API keys'];

export const keysRoutes: RegisterRoutes = (app, { keys }) => {
  app.get(
    '/api/keys',
    {
      config: { right: 'keys' },
      schema: {
        operationId: 'listApiKeys',
        tags,
        summary: 'List the workspace’s API keys (both environments; never the key itself)',
        querystring: pageQuery,
        response: { 200: page(apiKeySchema) },
      },
    },
    async (req) => keys.list(req.principal.workspaceId, req.query.limit, req.query.cursor),
  );

  app.post(
    '/api/keys',
    {
      config: {
        right: 'keys',
        // The key is shown once: a replay of the Idempotency-Key gets 409 and the key's record.
        secretAnswer: storedWithout('key'),
      },
      schema: {
        operationId: 'createApiKey',
        tags,
        summary: 'Create an API key; the response is the only time the key is shown',
        description:
          'The key itself is never stored (only its hash). With an `Idempotency-Key`, a replay answers 409 `idempotency_conflict` with the created key’s record in `error.details.created`, never the key: revoke it and create another if the answer was lost.',
        body: createKeyBody,
        response: { 201: createdKeySchema },
      },
    },
    (req, reply) => {
      reply.code(201);
      return keys.create(req.principal.workspaceId, req.body.environment, req.body.name);
    },
  );

  app.delete(
    '/api/keys/:id',
    {
      config: { right: 'keys', docs: { errors: ['invalid_state'] } },
      schema: {
        operationId: 'revokeApiKey',
        tags,
        summary: 'Revoke an API key; effective on its very next request',
        params: idParams,
        response: { 200: apiKeySchema },
      },
    },
    async (req) => keys.revoke(req.principal.workspaceId, req.params.id),
  );
};
