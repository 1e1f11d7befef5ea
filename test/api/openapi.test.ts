import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ERROR_CATALOG, ERROR_CODES } from '../../shared/errors.ts';
import { EVENT_TYPES } from '../../shared/schemas/events.ts';
import type { TestCore } from '../helpers.ts';
import { makeCore } from '../helpers.ts';
import { errorAnswerProblem } from '../openapi-check.ts';

type Json = Record<string, unknown>;
interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
  parameters?: { $ref?: string; name?: string; in?: string }[];
  requestBody?: { content: Record<string, { schema?: Json; example?: unknown }> };
  responses: Record<
    string,
    {
      headers?: Record<string, unknown>;
      content?: Record<string, { schema?: Json; example?: unknown; examples?: Json }>;
    }
  >;
}

let t: TestCore;
let doc: {
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Json>;
    securitySchemes: Record<string, Json>;
    examples: Record<string, Json>;
  };
  webhooks: Record<string, { post: Operation }>;
};
let operations: [string, Operation][];

beforeAll(async () => {
  t = await makeCore();
  doc = (await t.request('GET', '/openapi.json')).body;
  operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]): [string, Operation] => [
      `${method.toUpperCase()} ${path}`,
      op,
    ]),
  );
});
afterAll(async () => t?.close());

it('is a valid OpenAPI 3.1 document', async () => {
  const result = await new Validator().validate(structuredClone(doc));
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
  expect(operations.length).toBeGreaterThan(40);
});

it('gives every operation a unique operationId', () => {
  const ids = [
    ...operations.map(([, op]) => op.operationId),
    ...Object.values(doc.webhooks).map((w) => w.post.operationId),
  ];
  for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]+$/);
  expect(new Set(ids).size).toBe(ids.length);
  expect(doc.paths['/api/send']!.post!.operationId).toBe('sendTemplate');
  expect(doc.paths['/conversations']!.get!.operationId).toBe('listConversations');
});

it('lists error answers with the shared Error schema, one example per code', () => {
  const error = doc.components.schemas.Error as {
    properties: { error: { properties: { code: { enum: string[] } } } };
  };
  expect(error.properties.error.properties.code.enum).toEqual(ERROR_CODES);
  for (const [name, op] of operations) {
    const errors = Object.entries(op.responses).filter(([s]) => Number(s) >= 400);
    expect(
      errors.some(([s]) => s.startsWith('4')),
      name,
    ).toBe(true);
    for (const [status, response] of errors) {
      const json = response.content!['application/json']!;
      expect(json.schema, `${name} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
      for (const code of Object.keys(json.examples!)) {
        expect(ERROR_CATALOG[code as keyof typeof ERROR_CATALOG].status, code).toBe(Number(status));
      }
    }
    // Only the browser sign-in link is public (`security: []`); it cannot answer 401.
    const statuses =
      op.security?.length === 0
        ? ['403', '429', '500']
        : ['401', '403', '429', '500', '503', '507'];
    expect(Object.keys(op.responses), name).toEqual(expect.arrayContaining(statuses));
  }
  const send = doc.paths['/api/send']!.post!.responses;
  expect(Object.keys(send['422']!.content!['application/json']!.examples!).sort()).toEqual([
    // A live send on the Cloud API: Meta's 131047.
    'outside_service_window',
    'recipient_invalid',
    'template_not_approved',
    'template_not_ready',
    'template_paused',
  ]);
  expect(send['502']!.content!['application/json']!.examples).toHaveProperty('channel_error');
  expect(send['404']!.content!['application/json']!.examples).toHaveProperty('template_not_found');
  expect(send['402']).toBeDefined();
  expect(send['429']!.headers).toHaveProperty('Retry-After');
  expect(send['200']!.headers).toHaveProperty('Idempotent-Replayed');
  expect(
    doc.paths['/api/send-text']!.post!.responses['422']!.content!['application/json']!.examples,
  ).toHaveProperty('outside_service_window');
});

it('puts the dashboard-only operations under the session schemes alone', () => {
  expect(doc.components.securitySchemes.session).toMatchObject({ name: 'X-Parley-Session' });
  expect(doc.components.securitySchemes.sessionCookie).toMatchObject({ in: 'cookie' });
  const sessionOnly = operations.filter(([, op]) => op.security !== undefined);
  expect(sessionOnly.map(([name]) => name)).toEqual(
    expect.arrayContaining([
      'GET /api/keys',
      'POST /api/keys',
      'DELETE /api/keys/{id}',
      'POST /api/wallet/topup',
      'PUT /api/wallet/prices',
      'PATCH /api/workspace/settings',
    ]),
  );
  for (const [, op] of sessionOnly) {
    for (const requirement of op.security!) {
      expect(Object.keys(requirement).every((k) => k === 'session' || k === 'sessionCookie')).toBe(
        true,
      );
    }
  }
});

it('documents the headers and the non-JSON media types', () => {
  const refs = (op: Operation) => (op.parameters ?? []).map((p) => p.$ref ?? p.name);
  for (const [name, op] of operations) {
    if (name.startsWith('POST ')) {
      expect(refs(op), name).toContain('#/components/parameters/IdempotencyKey');
    }
  }
  const events = doc.paths['/events']!.get!;
  expect(refs(events)).toContain('#/components/parameters/LastEventId');
  expect(Object.keys(events.responses['200']!.content!)).toEqual(['text/event-stream']);
  expect(refs(doc.paths['/conversations']!.get!)).toContain('#/components/parameters/ParleyAgent');
  const importOp = doc.paths['/api/contacts/import']!.post!;
  expect(Object.keys(importOp.requestBody!.content)).toContain('text/csv');
  expect(Object.keys(importOp.responses['200']!.content!)).toEqual(
    expect.arrayContaining(['application/json', 'application/x-ndjson']),
  );
});

it('describes every event type under webhooks, with the signature headers', () => {
  expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
  for (const type of EVENT_TYPES) {
    const post = doc.webhooks[type]!.post;
    const headers = (post.parameters ?? []).map((p) => p.name);
    expect(headers).toEqual(
      expect.arrayContaining(['X-Parley-Signature', 'webhook-id', 'webhook-signature']),
    );
    expect(post.requestBody!.content['application/json']!.example).toMatchObject({ type });
  }
});

it('gives examples that match their schemas', () => {
  const ajv = new Ajv2020({ strict: false });
  addFormats(ajv);
  // The shared schemas once, under an id of their own; each example's schema refers to them (so
  // each shared schema is compiled once, not again with every example).
  const toDefs = (value: unknown) =>
    JSON.parse(
      JSON.stringify(value).replaceAll('"#/components/schemas/', '"components#/$defs/'),
    ) as Json;
  ajv.addSchema({ $id: 'components', $defs: toDefs(doc.components.schemas) });
  const check = (where: string, schema: Json | undefined, value: unknown) => {
    const validate = ajv.compile(toDefs(schema));
    expect(validate(value), `${where}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  };
  let examples = 0;
  const all = [
    ...operations,
    ...Object.entries(doc.webhooks).map(([k, w]): [string, Operation] => [k, w.post]),
  ];
  for (const [name, op] of all) {
    const body = op.requestBody?.content['application/json'];
    if (body?.example !== undefined) {
      check(`${name} request`, body.schema, body.example);
      examples++;
    }
    for (const [status, response] of Object.entries(op.responses)) {
      const json = response.content?.['application/json'];
      if (json?.example !== undefined) {
        check(`${name} ${status}`, json.schema, json.example);
        examples++;
      }
      for (const [code, ex] of Object.entries(json?.examples ?? {})) {
        const ref = (ex as { $ref?: string }).$ref;
        const named = ref ? doc.components.examples[ref.split('/').pop()!] : ex;
        check(`${name} ${status} ${code}`, json!.schema, (named as { value: unknown }).value);
      }
    }
  }
  expect(examples).toBeGreaterThanOrEqual(8);
});

it('the error-answer checker the API tests run through refuses what the document does not declare', () => {
  const doc = () => t.core.app.swagger();
  const envelope = (code: string) => ({
    error: { code, message: 'm', docs: 'http://127.0.0.1:1/docs#' + code },
  });
  const answer = (status: number, code: string, url = '/api/send', method = 'POST') => ({
    method,
    url,
    status,
    type: 'application/json; charset=utf-8',
    body: envelope(code),
  });
  // A declared answer passes…
  expect(errorAnswerProblem(doc, answer(404, 'template_not_found'))).toBeNull();
  // …an undeclared status, a code of another status, or a body outside the envelope do not.
  expect(errorAnswerProblem(doc, answer(418, 'validation_error'))).not.toBeNull();
  expect(errorAnswerProblem(doc, answer(404, 'invalid_state'))).not.toBeNull();
  expect(
    errorAnswerProblem(doc, { ...answer(404, 'template_not_found'), body: { oops: true } }),
  ).not.toBeNull();
});
