import path from 'node:path';
import type { NormalizedProblem } from '@redocly/openapi-core';
import { lintFromString, loadConfig } from '@redocly/openapi-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { makeCore } from '../helpers.ts';

let t: TestCore;
beforeAll(async () => {
  t = await makeCore();
});
afterAll(async () => t?.close());

it('passes Redocly’s recommended lint with no error and no warning', async () => {
  const config = await loadConfig({
    configPath: path.resolve(import.meta.dirname, '../../.config/redocly.yaml'),
  });
  const res = await t.request('GET', '/openapi.json');
  const problems = await lintFromString({
    source: res.text,
    // The name .config/.redocly.lint-ignore.yaml knows the document by.
    absoluteRef: 'http://127.0.0.1:4780/openapi.json',
    config,
  });
  const show = (p: NormalizedProblem) =>
    `${p.severity} ${p.ruleId}: ${p.message} (${p.location[0]?.pointer ?? ''})`;
  expect(problems.filter((p) => !p.ignored).map(show)).toEqual([]);
  // The one accepted exception still applies (drop it from the ignore file when it does not).
  expect(problems.filter((p) => p.ignored).map((p) => p.location[0]?.pointer)).toEqual([
    '#/paths/~1login/get/responses',
  ]);
});

it('names the served origin in `servers`', async () => {
  expect((await t.request('GET', '/openapi.json')).body.servers).toEqual([
    expect.objectContaining({ url: 'http://127.0.0.1:4780' }),
  ]);
  const served = await makeCore();
  try {
    const { port } = await served.core.start({ port: 0 });
    const res = await served.request('GET', '/openapi.json');
    expect(res.body.servers).toEqual([
      expect.objectContaining({ url: `http://127.0.0.1:${port}` }),
    ]);
  } finally {
    await served.close();
  }
});
