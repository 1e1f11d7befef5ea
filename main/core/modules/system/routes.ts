import { page } from '../../../../shared/schemas/common.ts';
import { meSchema, workspaceSchema } from '../../../../shared/schemas/workspaces.ts';
import type { RegisterRoutes } from '../../http/types.ts';

const tags = ['Workspace'];

export const systemRoutes: RegisterRoutes = (app, { workspaces }) => {
  app.get(
    '/api/me',
    {
      schema: {
        tags,
        summary: 'Who the credentials are: workspace, environment and active business account',
        response: { 200: meSchema },
      },
    },
    async (req) => {
      const p = req.principal;
      return {
        workspace: workspaces.get(p.workspaceId),
        environment: p.environment,
        auth: p.kind,
        keyPrefix: p.keyPrefix,
        businessAccount: workspaces.activeAccount(p.workspaceId),
      };
    },
  );

  app.get(
    '/api/workspaces',
    {
      schema: {
        tags,
        summary: 'Workspaces visible to the credentials (an API key sees its own)',
        response: { 200: page(workspaceSchema) },
      },
    },
    async (req) => ({
      data:
        req.principal.kind === 'session'
          ? workspaces.list()
          : [workspaces.get(req.principal.workspaceId)],
      nextCursor: null,
    }),
  );
};
