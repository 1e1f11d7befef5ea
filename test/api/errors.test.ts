import net from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { ERROR_CODES } from '../../shared/errors.ts';
import type { TestCore } from '../helpers.ts';
import { makeCore } from '../helpers.ts';

let t: TestCore;
afterEach(async () => {
  await t?.close();
});

/** Sends raw bytes to the server and reads the whole answer (it closes the connection). */
function raw(
  port: number,
  request: string,
): Promise<{ status: number; body: string; head: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    socket.on('data', (d) => (data += d.toString()));
    socket.on('error', reject);
    socket.on('close', () => {
      const i = data.indexOf('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.1 (\d+)/.exec(data)?.[1] ?? 0),
        head: data.slice(0, i),
        body: data.slice(i + 4),
      });
    });
    socket.end(request);
  });
}

function expectEnvelope(body: string) {
  const parsed = JSON.parse(body) as { error: { code: string; message: string; docs: string } };
  expect(ERROR_CODES).toContain(parsed.error.code);
  expect(parsed.error.message).toEqual(expect.any(String));
  expect(parsed.error.docs).toMatch(/\/docs#/);
  return parsed.error;
}

it('answers every framework-level error in the envelope', async () => {
  t = await makeCore();
  const { port } = await t.core.start({ port: 0 });
  const key = t.key();
  const host = `Host: 127.0.0.1:${port}\r\n`;
  const cases: [string, number, string][] = [
    // Bad percent-encoding in the path.
    [
      `GET /api/contacts/%E0%A4%A HTTP/1.1\r\n${host}X-API-Key: ${key}\r\n\r\n`,
      400,
      'validation_error',
    ],
    // Headers far over Node's limit.
    [
      `GET /health HTTP/1.1\r\n${host}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'headers_too_large',
    ],
    // Broken framing: a request line that is not HTTP.
    [`HELLO\r\n\r\n`, 400, 'validation_error'],
    // Content-Length and Transfer-Encoding together (request smuggling shape).
    [
      `POST /api/contacts HTTP/1.1\r\n${host}Content-Type: application/json\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      400,
      'validation_error',
    ],
    // An over-long path parameter.
    [
      `GET /api/contacts/${'x'.repeat(2000)} HTTP/1.1\r\n${host}X-API-Key: ${key}\r\nConnection: close\r\n\r\n`,
      400,
      'validation_error',
    ],
  ];
  for (const [request, status, code] of cases) {
    const res = await raw(port, request);
    expect(res.status, request.slice(0, 60)).toBe(status);
    expect(expectEnvelope(res.body).code).toBe(code);
  }
});

it('answers a wrong method with 405 and Allow, not 404', async () => {
  t = await makeCore();
  const key = t.key();
  const res = await t.request('DELETE', '/api/send', { key });
  expect(res.status).toBe(405);
  expect(res.headers.allow).toBe('POST');
  expect(res.body.error.code).toBe('method_not_allowed');
  const withParam = await t.request('PUT', '/conversations/conv_123', { key });
  expect(withParam.status).toBe(405);
  expect(String(withParam.headers.allow).split(', ').sort()).toEqual(['GET', 'HEAD', 'PATCH']);
  expect((await t.request('GET', '/api/nothing-here', { key })).status).toBe(404);
});

it('searches conversations with any text, control characters and FTS syntax included', async () => {
  t = await makeCore();
  const key = t.key();
  await t.request('POST', '/api/simulator/inbound', {
    key,
    body: { phone: '+14155552671', message: 'order "A-1" (urgent)' },
  });
  for (const q of [
    '%00',
    '%22',
    '*',
    '-',
    '(',
    'NEAR(',
    'a%3Ab',
    '%20',
    '%01%02',
    'AND',
    '%22A-1%22',
  ]) {
    const res = await t.request('GET', `/conversations?q=${q}`, { key });
    expect(res.status, q).toBe(200);
  }
  const hit = await t.request('GET', `/conversations?q=${encodeURIComponent('"A-1"')}`, { key });
  expect(hit.body.data).toHaveLength(1);
});

it('maps a full disk to 507 storage_full and a busy store to 503 with Retry-After', async () => {
  t = await makeCore();
  const key = t.key();
  const { db } = t.core.services;
  // Cap the file at its current size: the next page it needs cannot be had (as on a full disk).
  const pages = db.pragma('page_count', { simple: true }) as number;
  db.pragma(`max_page_count = ${pages}`);
  let res;
  for (let i = 0; i < 200; i++) {
    res = await t.request('POST', '/api/contacts', {
      key,
      body: { phone: `+1415555${String(2000 + i)}`, name: 'x'.repeat(200) },
    });
    if (res.status !== 201) break;
  }
  expect(res!.status).toBe(507);
  expect(res!.body.error.code).toBe('storage_full');
  db.pragma('max_page_count = 4294967294');

  // Another connection holds the write lock past the busy timeout.
  const Database = (await import('better-sqlite3')).default;
  const other = new Database(`${t.dataDir}/parley.db`);
  db.pragma('busy_timeout = 50');
  other.exec('BEGIN IMMEDIATE');
  try {
    const busy = await t.request('POST', '/api/contacts', { key, body: { phone: '+14155559999' } });
    expect(busy.status).toBe(503);
    expect(busy.body.error.code).toBe('store_busy');
    expect(busy.headers['retry-after']).toBe('1');
  } finally {
    other.exec('ROLLBACK');
    other.close();
  }
});
