import { afterEach, expect, it } from 'vitest';
import { ERROR_CATALOG, ERROR_CODES } from '../../shared/errors.ts';
import type { TestCore } from '../helpers.ts';
import { makeCore } from '../helpers.ts';

let t: TestCore;
afterEach(async () => t?.close());

it('documents every error code of the catalog at /docs, readable without JavaScript', async () => {
  t = await makeCore();
  const res = await t.request('GET', '/docs');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/text\/html/);
  expect(res.text).not.toContain('<script');
  for (const code of ERROR_CODES) {
    expect(res.text).toContain(`id="${code}"`);
    expect(res.text).toContain(`<td>${ERROR_CATALOG[code].status}</td>`);
  }
  expect(res.text).toContain('/api/contacts');
});

it('serves /openapi.json generated from the validating schemas, and /health', async () => {
  t = await makeCore();
  const res = await t.request('GET', '/openapi.json');
  expect(res.status).toBe(200);
  expect(res.body.openapi).toBe('3.1.0');
  const create = res.body.paths['/api/contacts'].post;
  expect(create.requestBody.content['application/json'].schema.required).toContain('phone');
  expect(
    res.body.paths['/api/contacts'].get.parameters.map((p: { name: string }) => p.name),
  ).toEqual(expect.arrayContaining(['phone', 'label', 'group', 'q', 'limit', 'cursor']));
  expect(res.body.components.securitySchemes.apiKey.name).toBe('X-API-Key');
  expect((await t.request('GET', '/health')).body.status).toBe('ok');
});

it('links every error to its anchor at /docs', async () => {
  t = await makeCore();
  const res = await t.request('GET', '/api/contacts/ct_nope', { key: t.key() });
  expect(res.body.error.docs).toMatch(/\/docs#not_found$/);
});
