import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeGraph, FakeGraphOptions } from '../fake-graph.ts';
import { startFakeGraph } from '../fake-graph.ts';

// --- harness ---------------------------------------------------------------------------------

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function fake(opts: FakeGraphOptions = {}): Promise<FakeGraph> {
  const g = await startFakeGraph(opts);
  cleanups.push(() => g.close());
  return g;
}

interface Received {
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  valid: boolean;
}

/**
 * A tiny webhook receiver, as Parley's side will be: it checks X-Hub-Signature-256 over the raw
 * bytes (401 when wrong or missing) and answers Meta's verification GET.
 */
async function receiver(appSecret: string, verifyToken = 'verify-me') {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (req.method === 'GET') {
        const ok =
          url.searchParams.get('hub.mode') === 'subscribe' &&
          url.searchParams.get('hub.verify_token') === verifyToken;
        res.writeHead(ok ? 200 : 403, { 'content-type': 'text/plain' });
        res.end(ok ? (url.searchParams.get('hub.challenge') ?? '') : 'forbidden');
        return;
      }
      const raw = Buffer.concat(chunks);
      const expected = Buffer.from(
        'sha256=' + createHmac('sha256', appSecret).update(raw).digest('hex'),
      );
      const given = Buffer.from(String(req.headers['x-hub-signature-256'] ?? ''));
      const valid = given.length === expected.length && timingSafeEqual(given, expected);
      received.push({ headers: req.headers, raw, body: JSON.parse(raw.toString('utf8')), valid });
      res.writeHead(valid ? 200 : 401);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/channel/webhook`;
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return { url, received };
}

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

async function call(
  g: FakeGraph,
  method: string,
  path: string,
  body?: unknown,
  opts: { token?: string | null; signal?: AbortSignal } = {},
): Promise<{ status: number; body: Json; headers: Headers }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const token = opts.token === undefined ? g.accessToken : opts.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${g.baseUrl}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: opts.signal,
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

const send = (
  g: FakeGraph,
  body: unknown,
  opts?: { token?: string | null; signal?: AbortSignal },
) => call(g, 'POST', `/${g.phoneNumberId}/messages`, body, opts);

const CUSTOMER = '+15550001111';

const textMessage = (body = 'Hello', extra: Record<string, unknown> = {}) => ({
  messaging_product: 'whatsapp',
  recipient_type: 'individual',
  to: CUSTOMER,
  type: 'text',
  text: { body, preview_url: false },
  ...extra,
});

const templateMessage = (params: string[], name = 'order_update', code = 'en_US') => ({
  messaging_product: 'whatsapp',
  to: CUSTOMER,
  type: 'template',
  template: {
    name,
    language: { code, policy: 'deterministic' },
    components: [{ type: 'body', parameters: params.map((text) => ({ type: 'text', text })) }],
  },
});

function listMessage(sections: Array<{ title?: string; rows: number }>, rowTitle = 'Row') {
  let n = 0;
  return {
    messaging_product: 'whatsapp',
    to: CUSTOMER,
    type: 'interactive',
    interactive: {
      type: 'list',
      header: { type: 'text', text: 'Pick one' },
      body: { text: 'Which option do you prefer?' },
      footer: { text: 'Parley' },
      action: {
        button: 'Options',
        sections: sections.map((s) => ({
          ...(s.title === undefined ? {} : { title: s.title }),
          rows: Array.from({ length: s.rows }, () => ({
            id: `row_${++n}`,
            title: `${rowTitle} ${n}`,
            description: 'A description',
          })),
        })),
      },
    },
  };
}

function addOrderTemplate(g: FakeGraph, status = 'APPROVED') {
  return g.addTemplate({
    name: 'order_update',
    language: 'en_US',
    category: 'UTILITY',
    status,
    components: [
      {
        type: 'BODY',
        text: 'Hi {{1}}, your order {{2}} has shipped.',
        example: { body_text: [['Ana', 'A-1']] },
      },
    ],
  });
}

// --- sends -------------------------------------------------------------------------------------

describe('fake Graph API: sending messages', () => {
  it('accepts a text inside the customer-service window, answers like Meta and records it', async () => {
    const g = await fake();
    g.inboundText({ from: CUSTOMER, text: 'hi' }); // opens the 24 h window
    const r = await send(
      g,
      textMessage('Olá 👋', { to: '+1 555-000-1111', biz_opaque_callback_data: 'msg_1' }),
    );
    expect(r.status).toBe(200);
    expect(r.body.messaging_product).toBe('whatsapp');
    expect(r.body.contacts).toEqual([{ input: '+1 555-000-1111', wa_id: '15550001111' }]);
    expect(r.body.messages).toHaveLength(1);
    expect(r.body.messages[0].id).toMatch(/^wamid\.[A-Za-z0-9+/=]+$/);
    expect(r.body.messages[0]).not.toHaveProperty('message_status'); // template sends only
    expect(g.sent).toHaveLength(1);
    expect(g.sent[0]).toMatchObject({
      wamid: r.body.messages[0].id,
      waId: '15550001111',
      type: 'text',
      bizOpaqueCallbackData: 'msg_1',
    });
    const req = g.requests.at(-1)!;
    expect(req.method).toBe('POST');
    expect(req.path).toBe(`/v21.0/${g.phoneNumberId}/messages`);
    expect(req.headers.authorization).toBe(`Bearer ${g.accessToken}`);
    expect((req.body as Json).text.body).toBe('Olá 👋');
    expect(req.rawBody).toContain('Olá');
  });

  it('refuses text and lists with 131047 when no window is open, or once it has expired', async () => {
    let t = Date.parse('2026-03-01T10:00:00Z');
    const g = await fake({ now: () => t });
    const r = await send(g, textMessage());
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({
      message: '(#131047) Re-engagement message',
      type: 'OAuthException',
      code: 131047,
      error_data: { messaging_product: 'whatsapp' },
    });
    expect(r.body.error.error_data.details).toMatch(/24 hours/);
    expect((await send(g, listMessage([{ rows: 2 }]))).body.error.code).toBe(131047);

    g.inboundText({ from: CUSTOMER, text: 'hello' });
    expect((await send(g, textMessage())).status).toBe(200);
    t += 24 * 60 * 60 * 1000 + 1;
    expect(g.hasOpenWindow(CUSTOMER)).toBe(false);
    expect((await send(g, textMessage())).body.error.code).toBe(131047);
    expect(g.sent).toHaveLength(1);
  });

  it('answers shape errors with (#100) Invalid parameter and a detail naming the param', async () => {
    const g = await fake();
    g.openWindow(CUSTOMER);
    const cases: Array<[unknown, RegExp]> = [
      [{ ...textMessage(), messaging_product: undefined }, /messaging_product is required/],
      [{ ...textMessage(), messaging_product: 'sms' }, /messaging_product must be one of/],
      [textMessage('x'.repeat(4097)), /text\['body'\] must be at most 4096 characters/],
      [textMessage(''), /text\['body'\] must be non-empty/],
      [{ ...textMessage(), text: { body: 'hi', previewUrl: true } }, /Unexpected key "previewUrl"/],
      [{ ...textMessage(), to: 'not-a-number' }, /Param to/],
      [
        textMessage('hi', { biz_opaque_callback_data: 'x'.repeat(513) }),
        /biz_opaque_callback_data/,
      ],
      [{ ...textMessage(), recipient_type: 'group' }, /recipient_type/],
      [
        {
          messaging_product: 'whatsapp',
          to: CUSTOMER,
          type: 'location',
          location: { latitude: 1, longitude: 2 },
        },
        /does not model messages of type 'location'/,
      ],
      [{ ...textMessage(), type: 'fax' }, /Param type must be one of/],
      [{ ...templateMessage([]), template: { name: 'x' } }, /template\['language'\] is required/],
    ];
    for (const [body, details] of cases) {
      const r = await send(g, body);
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(r.body.error).toMatchObject({
        message: '(#100) Invalid parameter',
        type: 'OAuthException',
        code: 100,
        error_data: { messaging_product: 'whatsapp' },
      });
      expect(r.body.error.fbtrace_id).toEqual(expect.any(String));
      expect(r.body.error.error_data.details).toMatch(details);
    }
    // Meta's documented default: a missing type means text.
    const { type: _type, ...untyped } = textMessage();
    expect((await send(g, untyped)).status).toBe(200);
    expect(g.sent).toHaveLength(1);
  });

  it('refuses a wrong or missing token with 401 / code 190', async () => {
    const g = await fake({ accessToken: 'right-token' });
    for (const token of ['wrong-token', null]) {
      const r = await send(g, textMessage(), { token });
      expect(r.status).toBe(401);
      expect(r.body.error).toMatchObject({ type: 'OAuthException', code: 190 });
      expect(r.body.error.message).toMatch(/^Error validating access token: /);
      expect(r.body.error.fbtrace_id).toEqual(expect.any(String));
      expect(r.headers.get('www-authenticate')).toMatch(/invalid_token/);
    }
    const phone = await call(g, 'GET', `/${g.phoneNumberId}`, undefined, { token: 'nope' });
    expect(phone.status).toBe(401);
    expect(g.sent).toHaveLength(0);
  });

  it('sends an approved template without a window and checks name, language, status and params', async () => {
    const g = await fake();
    addOrderTemplate(g);
    const ok = await send(g, templateMessage(['Ana', 'A-1']));
    expect(ok.status).toBe(200);
    expect(ok.body.messages[0]).toEqual({
      id: expect.stringMatching(/^wamid\./),
      message_status: 'accepted',
    });

    const unknown = await send(g, templateMessage(['Ana', 'A-1'], 'nope'));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({
      message: '(#132001) Template name does not exist in the translation',
      code: 132001,
      error_data: { details: 'template name (nope) does not exist in en_US' },
    });
    const wrongLanguage = await send(g, templateMessage(['Ana', 'A-1'], 'order_update', 'es_MX'));
    expect(wrongLanguage.body.error.code).toBe(132001);

    const count = await send(g, templateMessage(['Ana']));
    expect(count.status).toBe(400);
    expect(count.body.error).toMatchObject({
      message: '(#132000) Number of parameters does not match the expected number of params',
      code: 132000,
      error_data: {
        details:
          'body: number of localizable_params (1) does not match the expected number of params (2)',
      },
    });
    const noComponents = await send(g, {
      ...templateMessage([]),
      template: { name: 'order_update', language: { code: 'en_US' } },
    });
    expect(noComponents.body.error.code).toBe(132000);

    for (const [status, code] of [
      ['PAUSED', 132015],
      ['DISABLED', 132016],
      ['PENDING', 132001],
      ['REJECTED', 132001],
    ] as const) {
      g.templates[0]!.status = status;
      const r = await send(g, templateMessage(['Ana', 'A-1']));
      expect(r.body.error.code, status).toBe(code);
    }
    expect(g.sent).toHaveLength(1);
  });

  it('checks template headers, named parameters and URL button parameters', async () => {
    const g = await fake();
    g.addTemplate({
      name: 'promo',
      language: 'en',
      category: 'MARKETING',
      status: 'APPROVED',
      components: [
        { type: 'HEADER', format: 'TEXT', text: 'Hello {{1}}' },
        { type: 'BODY', text: 'Use {{1}}' },
        { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Shop', url: 'https://x.test/{{1}}' }] },
      ],
    });
    const base = { messaging_product: 'whatsapp', to: CUSTOMER, type: 'template' };
    const header = { type: 'header', parameters: [{ type: 'text', text: 'Ana' }] };
    const body = { type: 'body', parameters: [{ type: 'text', text: 'SAVE10' }] };
    const button = {
      type: 'button',
      sub_type: 'url',
      index: '0',
      parameters: [{ type: 'text', text: 'p/1' }],
    };
    const tpl = (components: unknown[]) => ({
      ...base,
      template: { name: 'promo', language: { code: 'en' }, components },
    });

    const noHeader = await send(g, tpl([body, button]));
    expect(noHeader.body.error.error_data.details).toBe(
      'header: number of localizable_params (0) does not match the expected number of params (1)',
    );
    const noButton = await send(g, tpl([header, body]));
    expect(noButton.body.error).toMatchObject({
      code: 131008,
      error_data: { details: 'buttons: Button at index 0 of type Url requires a parameter' },
    });
    const emptyText = await send(
      g,
      tpl([header, { type: 'body', parameters: [{ type: 'text', text: '' }] }, button]),
    );
    expect(emptyText.body.error.code).toBe(131008);
    expect((await send(g, tpl([header, body, { ...button, index: 0 }]))).status).toBe(200);

    g.addTemplate({
      name: 'named',
      language: 'en',
      category: 'UTILITY',
      status: 'APPROVED',
      parameterFormat: 'NAMED',
      components: [{ type: 'BODY', text: 'Hi {{first_name}}' }],
    });
    const named = (parameter_name: string) => ({
      ...base,
      template: {
        name: 'named',
        language: { code: 'en' },
        components: [{ type: 'body', parameters: [{ type: 'text', parameter_name, text: 'Ana' }] }],
      },
    });
    expect((await send(g, named('first_name'))).status).toBe(200);
    expect((await send(g, named('last_name'))).body.error.code).toBe(132000);
  });

  it('accepts a list within Meta limits and refuses more than 10 rows in total with 131009', async () => {
    const g = await fake();
    g.openWindow(CUSTOMER);
    const ok = await send(
      g,
      listMessage([
        { title: 'A', rows: 5 },
        { title: 'B', rows: 5 },
      ]),
    );
    expect(ok.status).toBe(200);
    expect(ok.body.messages[0]).not.toHaveProperty('message_status');

    const tooMany = await send(
      g,
      listMessage([
        { title: 'A', rows: 6 },
        { title: 'B', rows: 5 },
      ]),
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatchObject({
      message: '(#131009) Parameter value is not valid',
      code: 131009,
      error_data: {
        messaging_product: 'whatsapp',
        details: 'Total row count exceed max allowed count: 10',
      },
    });
    const sections = Array.from({ length: 11 }, (_, i) => ({ title: `S${i}`, rows: 0 }));
    const tooManySections = await send(g, listMessage(sections));
    expect(tooManySections.body.error.code).toBe(100); // empty sections: a shape error first
    const untitled = await send(g, listMessage([{ rows: 1 }, { rows: 1 }]));
    expect(untitled.body.error.code).toBe(131009);

    const longTitle = await send(g, listMessage([{ rows: 1 }], 'x'.repeat(24)));
    expect(longTitle.body.error.code).toBe(100);
    expect(longTitle.body.error.error_data.details).toMatch(
      /interactive\['action'\]\['sections'\]\[0\]\['rows'\]\[0\]\['title'\] must be at most 24 characters/,
    );
    // Lengths count characters, not UTF-16 units: 24 emoji fit in a row title.
    const emoji = listMessage([{ rows: 1 }]);
    emoji.interactive.action.sections[0]!.rows[0]!.title = '🙂'.repeat(24);
    expect((await send(g, emoji)).status).toBe(200);

    const imageHeader = listMessage([{ rows: 1 }]);
    (imageHeader.interactive.header as Json) = { type: 'image', image: { id: '1' } };
    expect((await send(g, imageHeader)).body.error.code).toBe(100);
    const buttons = {
      ...listMessage([{ rows: 1 }]),
      interactive: { type: 'button', body: { text: 'x' } },
    };
    expect((await send(g, buttons)).body.error.error_data.details).toMatch(
      /does not model interactive/,
    );
    expect(g.sent).toHaveLength(2);
  });
});

// --- programmable behaviour --------------------------------------------------------------------

describe('fake Graph API: programmable failures', () => {
  it('fails the next sends as told, then recovers', async () => {
    const g = await fake();
    g.openWindow(CUSTOMER);
    g.failNext({ code: 131026 });
    const undeliverable = await send(g, textMessage());
    expect(undeliverable.status).toBe(400);
    expect(undeliverable.body.error).toMatchObject({
      message: '(#131026) Message Undeliverable',
      code: 131026,
      error_data: { messaging_product: 'whatsapp' },
    });
    expect((await send(g, textMessage())).status).toBe(200);

    g.failNext({ code: 130429, times: 2 });
    for (let i = 0; i < 2; i++) {
      const r = await send(g, textMessage());
      expect(r.status).toBe(429);
      expect(r.body.error).toMatchObject({
        code: 130429,
        error_subcode: 2494055,
        message: '(#130429) Rate limit hit',
      });
    }
    g.failNext({ code: 131056 });
    expect((await send(g, textMessage())).body.error.code).toBe(131056);

    g.failNext({ code: 1, httpStatus: 500 });
    const unknown = await send(g, textMessage());
    expect(unknown.status).toBe(500);
    expect(unknown.body.error).toMatchObject({
      code: 1,
      message: 'An unknown error occurred',
      is_transient: true,
    });
    g.failNext({ code: 2 });
    expect((await send(g, textMessage())).status).toBe(503);
    g.failNext({ code: 131000 });
    expect((await send(g, textMessage())).status).toBe(500);
    g.failNext({ code: 190 });
    expect((await send(g, textMessage())).status).toBe(401);
    g.failNext({
      code: 132000,
      message: 'custom text',
      details: 'custom details',
      httpStatus: 418,
    });
    const custom = await send(g, textMessage());
    expect(custom.status).toBe(418);
    expect(custom.body.error).toMatchObject({
      message: 'custom text',
      error_data: { details: 'custom details' },
    });

    // A shape error does not consume a programmed failure.
    g.failNext({ code: 131026 });
    expect((await send(g, textMessage(''))).body.error.code).toBe(100);
    expect((await send(g, textMessage())).body.error.code).toBe(131026);

    // Per-recipient rules, and sending to ourselves.
    g.failFor(CUSTOMER, { code: 131026 });
    expect((await send(g, textMessage())).body.error.code).toBe(131026);
    g.failFor(CUSTOMER, null);
    expect((await send(g, textMessage())).status).toBe(200);
    g.openWindow(g.phone.displayPhoneNumber);
    expect(
      (await send(g, { ...textMessage(), to: g.phone.displayPhoneNumber })).body.error.code,
    ).toBe(131021);

    // on: 'any' hits other endpoints too.
    g.failNext({ code: 2, on: 'any' });
    expect((await call(g, 'GET', `/${g.phoneNumberId}`)).status).toBe(503);
    expect(g.sent).toHaveLength(2);
  });

  it('reports an async failure as a failed status webhook after accepting the send', async () => {
    const g = await fake();
    const rx = await receiver(g.appSecret);
    g.setWebhookUrl(rx.url);
    addOrderTemplate(g);
    g.failNext({ code: 131049, async: true });
    const r = await send(g, {
      ...templateMessage(['Ana', 'A-1']),
      biz_opaque_callback_data: 'msg_9',
    });
    expect(r.status).toBe(200);
    await g.settled();
    expect(rx.received).toHaveLength(1);
    const status = rx.received[0]!.body.entry[0].changes[0].value.statuses[0];
    expect(status).toMatchObject({
      id: r.body.messages[0].id,
      status: 'failed',
      recipient_id: '15550001111',
      biz_opaque_callback_data: 'msg_9',
      errors: [
        {
          code: 131049,
          title: 'This message was not delivered to maintain healthy ecosystem engagement.',
          error_data: { details: expect.any(String) },
          href: expect.any(String),
        },
      ],
    });
  });

  it('holds back an answer (hangNext) and drops a connection (dropNext)', async () => {
    const g = await fake();
    g.openWindow(CUSTOMER);

    g.hangNext(400);
    const started = Date.now();
    await expect(send(g, textMessage(), { signal: AbortSignal.timeout(80) })).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(350);
    expect(g.sent).toHaveLength(1); // processed: only the answer was held back

    g.hangNext(60);
    const lateStart = Date.now();
    const late = await send(g, textMessage());
    expect(late.status).toBe(200); // a late answer, as Meta's can be
    expect(Date.now() - lateStart).toBeGreaterThanOrEqual(55);

    g.dropNext();
    await expect(send(g, textMessage())).rejects.toThrow();
    expect(g.sent).toHaveLength(2); // not processed

    g.dropNext({ processed: true });
    await expect(send(g, textMessage())).rejects.toThrow();
    expect(g.sent).toHaveLength(3);

    g.hangNext(Infinity, { on: 'any' });
    await expect(
      call(g, 'GET', `/${g.phoneNumberId}`, undefined, { signal: AbortSignal.timeout(50) }),
    ).rejects.toThrow();
    expect((await send(g, textMessage())).status).toBe(200);
    expect(g.requests.filter((r) => r.path.endsWith('/messages'))).toHaveLength(5);
  });
});

// --- phone number, templates -------------------------------------------------------------------

describe('fake Graph API: phone number and templates', () => {
  it('serves the phone number node with the fields asked for', async () => {
    const g = await fake({ tier: 'TIER_10K', throughputLevel: 'HIGH', verifiedName: 'Acme' });
    const fields =
      'id,verified_name,display_phone_number,quality_rating,messaging_limit_tier,throughput';
    const full = await call(g, 'GET', `/${g.phoneNumberId}?fields=${fields}`);
    expect(full.status).toBe(200);
    expect(full.body).toEqual({
      id: g.phoneNumberId,
      verified_name: 'Acme',
      display_phone_number: '+1 555-078-3881',
      quality_rating: 'GREEN',
      messaging_limit_tier: 'TIER_10K',
      throughput: { level: 'HIGH' },
    });
    const plain = await call(g, 'GET', `/${g.phoneNumberId}`);
    expect(Object.keys(plain.body).sort()).toEqual([
      'display_phone_number',
      'id',
      'quality_rating',
      'verified_name',
    ]);
    g.phone.tier = 'TIER_UNLIMITED';
    const limit = await call(
      g,
      'GET',
      `/${g.phoneNumberId}?fields=whatsapp_business_manager_messaging_limit`,
    );
    expect(limit.body).toEqual({
      whatsapp_business_manager_messaging_limit: 'TIER_UNLIMITED',
      id: g.phoneNumberId,
    });
    const bad = await call(g, 'GET', `/${g.phoneNumberId}?fields=tier`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/nonexisting field \(tier\)/);
    const other = await call(g, 'GET', '/999999');
    expect(other.status).toBe(400);
    expect(other.body.error).toMatchObject({
      code: 100,
      error_subcode: 33,
      type: 'GraphMethodException',
    });
  });

  it('runs the template lifecycle: create, duplicate, list with paging, status webhook, edit, delete', async () => {
    const g = await fake();
    const rx = await receiver(g.appSecret);
    g.setWebhookUrl(rx.url);
    const path = `/${g.wabaId}/message_templates`;
    const template = (name: string) => ({
      name,
      language: 'en_US',
      category: 'UTILITY',
      components: [
        { type: 'HEADER', format: 'TEXT', text: 'Your order' },
        {
          type: 'BODY',
          text: 'Hi {{1}}, order {{2}} shipped.',
          example: { body_text: [['Ana', 'A-1']] },
        },
        { type: 'FOOTER', text: 'Parley' },
        { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Thanks' }] },
      ],
    });

    const created = await call(g, 'POST', path, template('order_shipped'));
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      status: 'PENDING',
      category: 'UTILITY',
    });
    expect((await call(g, 'POST', path, template('second_one'))).status).toBe(200);

    const duplicate = await call(g, 'POST', path, template('order_shipped'));
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.error).toMatchObject({ code: 100, error_subcode: 2388024 });
    const badName = await call(g, 'POST', path, template('Order-Shipped'));
    expect(badName.body.error).toMatchObject({
      code: 100,
      error_user_title: 'Invalid message template',
    });
    const noExample = template('no_example');
    delete (noExample.components[1] as Json).example;
    expect((await call(g, 'POST', path, noExample)).body.error.error_user_msg).toMatch(
      /example\.body_text/,
    );
    const badCategory = { ...template('x_y'), category: 'PROMO' };
    expect((await call(g, 'POST', path, badCategory)).status).toBe(400);

    // Not approved yet: sends refuse it.
    const sendIt = () => send(g, templateMessage(['Ana', 'A-1'], 'order_shipped'));
    expect((await sendIt()).body.error.code).toBe(132001);

    const page1 = await call(
      g,
      'GET',
      `${path}?fields=name,status,language,category,components&limit=1`,
    );
    expect(page1.body.data).toHaveLength(1);
    expect(page1.body.data[0]).toMatchObject({
      id: created.body.id,
      name: 'order_shipped',
      status: 'PENDING',
      language: 'en_US',
    });
    expect(page1.body.paging.cursors).toEqual({
      before: expect.any(String),
      after: expect.any(String),
    });
    expect(page1.body.paging.next).toEqual(expect.stringContaining('after='));
    const next = await fetch(page1.body.paging.next, {
      headers: { authorization: `Bearer ${g.accessToken}` },
    });
    const page2 = (await next.json()) as Json;
    expect(page2.data.map((t: Json) => t.name)).toEqual(['second_one']);
    expect(page2.paging.next).toBeUndefined();

    const webhookStatus = await g.setTemplateStatus('order_shipped', 'en_US', 'APPROVED');
    expect(webhookStatus).toBe(200);
    expect(rx.received).toHaveLength(1);
    const hook = rx.received[0]!;
    expect(hook.valid).toBe(true);
    expect(hook.body).toMatchObject({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: g.wabaId,
          time: expect.any(Number),
          changes: [
            {
              field: 'message_template_status_update',
              value: {
                event: 'APPROVED',
                message_template_id: Number(created.body.id),
                message_template_name: 'order_shipped',
                message_template_language: 'en_US',
                reason: 'NONE',
                message_template_category: 'UTILITY',
              },
            },
          ],
        },
      ],
    });
    expect((await sendIt()).status).toBe(200);

    await g.setTemplateStatus('second_one', 'en_US', 'REJECTED', 'INCORRECT_CATEGORY');
    expect(rx.received[1]!.body.entry[0].changes[0].value).toMatchObject({
      event: 'REJECTED',
      reason: 'INCORRECT_CATEGORY',
    });
    const rejected = await call(g, 'GET', `${path}?name=second&fields=name,status,rejected_reason`);
    expect(rejected.body.data).toEqual([
      {
        id: expect.any(String),
        name: 'second_one',
        status: 'REJECTED',
        rejected_reason: 'INCORRECT_CATEGORY',
      },
    ]);
    await g.setTemplateStatus('order_shipped', 'en_US', 'PAUSED');
    expect(rx.received[2]!.body.entry[0].changes[0].value.other_info.title).toBe('FIRST_PAUSE');
    expect((await sendIt()).body.error.code).toBe(132015);

    const edited = await call(g, 'POST', `/${created.body.id}`, {
      components: [
        {
          type: 'BODY',
          text: 'Hello {{1}}, {{2}} is on its way.',
          example: { body_text: [['Ana', 'A-1']] },
        },
      ],
    });
    expect(edited.body).toEqual({ success: true });
    const one = await call(g, 'GET', `/${created.body.id}`);
    expect(one.body).toMatchObject({
      status: 'PENDING',
      components: [{ type: 'BODY', text: 'Hello {{1}}, {{2}} is on its way.' }],
    });
    const editPending = await call(g, 'POST', `/${created.body.id}`, { category: 'MARKETING' });
    expect(editPending.body.error.code).toBe(100);

    expect((await call(g, 'DELETE', `${path}?name=order_shipped`)).body).toEqual({ success: true });
    const afterDelete = await call(g, 'GET', path);
    expect(afterDelete.body.data.map((t: Json) => t.name)).toEqual(['second_one']);
    expect((await call(g, 'DELETE', `${path}?name=order_shipped`)).status).toBe(400);
    expect(g.templates).toHaveLength(1);
  });
});

// --- webhooks ------------------------------------------------------------------------------------

describe('fake Graph API: webhooks', () => {
  it('posts sent → delivered → read after a send (autoStatuses), with the callback data', async () => {
    const g = await fake({ autoStatuses: { delayMs: 5 } });
    const rx = await receiver(g.appSecret);
    g.setWebhookUrl(rx.url);
    addOrderTemplate(g);
    const r = await send(g, {
      ...templateMessage(['Ana', 'A-1']),
      biz_opaque_callback_data: 'msg_42',
    });
    await g.settled();
    expect(rx.received).toHaveLength(3);
    const statuses = rx.received.map((x) => {
      expect(x.valid).toBe(true);
      expect(x.headers['content-type']).toBe('application/json');
      const change = x.body.entry[0].changes[0];
      expect(change.field).toBe('messages');
      expect(change.value.metadata).toEqual({
        display_phone_number: '15550783881',
        phone_number_id: g.phoneNumberId,
      });
      return change.value.statuses[0];
    });
    expect(statuses.map((s: Json) => s.status)).toEqual(['sent', 'delivered', 'read']);
    for (const s of statuses) {
      expect(s).toMatchObject({
        id: r.body.messages[0].id,
        recipient_id: '15550001111',
        biz_opaque_callback_data: 'msg_42',
        timestamp: expect.stringMatching(/^\d+$/),
      });
    }
    expect(statuses[0].conversation).toMatchObject({
      id: expect.any(String),
      expiration_timestamp: expect.any(String),
      origin: { type: 'utility' },
    });
    expect(statuses[0].pricing).toMatchObject({
      pricing_model: 'PMP',
      category: 'utility',
      billable: true,
    });
    expect(statuses[2].pricing).toBeUndefined();
  });

  it('signs the exact raw bytes, with non-ASCII escaped as Meta does', async () => {
    const g = await fake();
    const rx = await receiver(g.appSecret);
    g.setWebhookUrl(rx.url);
    const text = 'Olá 👋 café/naïve';
    expect(await g.post(g.inboundText({ from: '+447700900123', name: 'Zoë', text }))).toBe(200);
    const hook = rx.received[0]!;
    expect(hook.valid).toBe(true);
    const raw = hook.raw.toString('utf8');
    expect(raw).toMatch(/^[\x20-\x7e]*$/); // pure ASCII on the wire
    expect(raw).toContain('\\ud83d\\udc4b');
    expect(raw).toContain('caf\\u00e9\\/na\\u00efve');
    const message = hook.body.entry[0].changes[0].value.messages[0];
    expect(message).toMatchObject({ from: '447700900123', type: 'text', text: { body: text } });
    expect(hook.body.entry[0].changes[0].value.contacts).toEqual([
      { profile: { name: 'Zoë' }, wa_id: '447700900123' },
    ]);
    // A receiver that re-serialises the parsed JSON computes a different HMAC.
    const reserialised =
      'sha256=' + createHmac('sha256', g.appSecret).update(JSON.stringify(hook.body)).digest('hex');
    expect(reserialised).not.toBe(hook.headers['x-hub-signature-256']);
    // The sender can now be answered freely.
    expect(g.hasOpenWindow('447700900123')).toBe(true);

    expect(await g.post(g.inboundText({ from: CUSTOMER, text: 'x' }), { signature: 'bad' })).toBe(
      401,
    );
    expect(await g.post(g.inboundText({ from: CUSTOMER, text: 'x' }), { signature: 'none' })).toBe(
      401,
    );
    expect(rx.received.at(-1)!.headers['x-hub-signature-256']).toBeUndefined();
    const odd = '{"object":"whatsapp_business_account","entry":[]}';
    expect(await g.post(null, { rawBody: odd })).toBe(200);
    expect(rx.received.at(-1)!.raw.toString()).toBe(odd);
    expect(g.webhooks.map((w) => w.status)).toEqual([200, 401, 401, 200]);
  });

  it('builds list replies, unsupported messages, several changes and entries, out-of-order statuses', async () => {
    const g = await fake();
    const rx = await receiver(g.appSecret);
    g.setWebhookUrl(rx.url);

    const reply = g.inboundListReply({
      from: CUSTOMER,
      listRowId: 'row_2',
      title: 'Express',
      description: 'Next day',
      contextId: 'wamid.LIST',
    });
    expect(reply.entry[0]!.changes[0]!.value.messages).toEqual([
      {
        from: '15550001111',
        context: { from: '15550783881', id: 'wamid.LIST' },
        id: expect.stringMatching(/^wamid\./),
        timestamp: expect.stringMatching(/^\d+$/),
        type: 'interactive',
        interactive: {
          type: 'list_reply',
          list_reply: { id: 'row_2', title: 'Express', description: 'Next day' },
        },
      },
    ]);
    const sticker = g.inboundUnsupported({ from: '+15550002222', type: 'sticker' });
    expect(sticker.entry[0]!.changes[0]!.value.messages).toEqual([
      expect.objectContaining({
        type: 'sticker',
        sticker: expect.objectContaining({ mime_type: 'image/webp' }),
      }),
    ]);
    const unknown = g.inboundUnsupported({ from: '+15550002222', type: 'unsupported' });
    expect((unknown.entry[0]!.changes[0]!.value.messages as Json)[0].errors[0].code).toBe(131051);

    const read = g.status({
      wamid: 'wamid.A',
      status: 'read',
      recipient: CUSTOMER,
      timestamp: 1750000300,
    });
    const delivered = g.status({
      wamid: 'wamid.A',
      status: 'delivered',
      recipient: CUSTOMER,
      timestamp: 1750000200,
    });
    const failed = g.status([
      { wamid: 'wamid.B', status: 'failed', recipient: CUSTOMER, errors: [{ code: 131026 }] },
      { wamid: 'wamid.C', status: 'sent', recipient: CUSTOMER },
    ]);
    const combined = g.envelope([
      read,
      reply,
      { field: 'messages', value: { ...delivered.entry[0]!.changes[0]!.value } },
    ]);
    expect(combined.entry).toHaveLength(1);
    expect(combined.entry[0]!.changes).toHaveLength(3);
    const merged = g.mergeEntries(
      failed,
      sticker,
      g.templateStatusUpdate({ event: 'DISABLED', templateId: '123', name: 'x', language: 'en' }),
    );
    expect(merged.entry).toHaveLength(3);

    expect(await g.post(combined)).toBe(200);
    expect(await g.post(merged)).toBe(200);
    const [first, second] = rx.received;
    expect(
      first!.body.entry[0].changes.map((c: Json) => c.value.statuses?.[0]?.status ?? 'message'),
    ).toEqual(['read', 'message', 'delivered']);
    const failedStatuses = second!.body.entry[0].changes[0].value.statuses;
    expect(failedStatuses.map((s: Json) => s.status)).toEqual(['failed', 'sent']);
    expect(failedStatuses[0].errors[0]).toMatchObject({
      code: 131026,
      title: 'Message Undeliverable',
      error_data: { details: expect.any(String) },
    });
    expect(second!.body.entry[2].changes[0]).toMatchObject({
      field: 'message_template_status_update',
      value: { event: 'DISABLED', message_template_id: 123 },
    });
    expect(g.hasOpenWindow('+15550002222')).toBe(true);
  });

  it("performs Meta's verification GET", async () => {
    const g = await fake();
    const rx = await receiver(g.appSecret, 'secret-token');
    const ok = await g.verify(rx.url, 'secret-token', '1158201444');
    expect(ok).toEqual({ status: 200, body: '1158201444', challenge: '1158201444' });
    const random = await g.verify(rx.url, 'secret-token');
    expect(random.body).toBe(random.challenge);
    expect((await g.verify(rx.url, 'wrong')).status).toBe(403);
  });

  it('needs a webhook URL to post, and closes idempotently', async () => {
    const g = await fake({ autoStatuses: true });
    await expect(
      g.post(g.status({ wamid: 'w', status: 'sent', recipient: CUSTOMER })),
    ).rejects.toThrow(/no webhook URL/);
    g.openWindow(CUSTOMER);
    expect((await send(g, textMessage())).status).toBe(200); // statuses scheduled, no URL: skipped
    await g.settled();
    await Promise.all([g.close(), g.close()]);
    await g.close();
    await expect(send(g, textMessage())).rejects.toThrow();
  });
});

describe('fake Graph API: media', () => {
  const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
  const uploadForm = (parts: Record<string, string | Blob>) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(parts)) {
      if (typeof v === 'string') form.set(k, v);
      else form.set(k, v, 'label.png');
    }
    return form;
  };
  const postForm = async (g: FakeGraph, form: FormData, token = g.accessToken) => {
    const res = await fetch(`${g.baseUrl}/${g.phoneNumberId}/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    return { status: res.status, body: (await res.json()) as Json };
  };

  it('takes an upload (multipart: messaging_product, type, file) within Meta’s limits and sends by its id', async () => {
    const g = await fake();
    const png = new Blob([PNG], { type: 'image/png' });
    const ok = await postForm(
      g,
      uploadForm({ messaging_product: 'whatsapp', type: 'image/png', file: png }),
    );
    expect(ok).toEqual({ status: 200, body: { id: expect.stringMatching(/^\d+$/) } });
    expect(g.media.get(ok.body.id)).toMatchObject({ origin: 'upload', mimeType: 'image/png' });

    const noProduct = await postForm(g, uploadForm({ type: 'image/png', file: png }));
    expect(noProduct.body.error.code).toBe(100);
    const unsupported = await postForm(
      g,
      uploadForm({ messaging_product: 'whatsapp', type: 'image/svg+xml', file: png }),
    );
    expect(unsupported.body.error.code).toBe(100);
    const big = new Blob([Buffer.alloc(600 * 1024)], { type: 'image/webp' });
    const tooBig = await postForm(
      g,
      uploadForm({ messaging_product: 'whatsapp', type: 'image/webp', file: big }),
    );
    expect(tooBig.body.error.code).toBe(131053);

    g.openWindow(CUSTOMER);
    const image = {
      messaging_product: 'whatsapp',
      to: CUSTOMER,
      type: 'image',
      image: { id: ok.body.id, caption: 'label' },
    };
    expect((await send(g, image)).status).toBe(200);
    expect(g.sent.at(-1)).toMatchObject({ type: 'image' });
    const unknown = await send(g, { ...image, image: { id: '999' } });
    expect(unknown.body.error.code).toBe(131053);
    const reaction = await send(g, {
      messaging_product: 'whatsapp',
      to: CUSTOMER,
      type: 'reaction',
      reaction: { message_id: 'wamid.X', emoji: '👍' },
    });
    expect(reaction.status).toBe(200);
  });

  it('serves a customer’s file in two steps: the URL, then the bytes with the token, for 5 minutes', async () => {
    let now = Date.now();
    const g = await fake({ now: () => now });
    const held = g.addMedia({ bytes: PNG, mimeType: 'image/png' });
    const info = await call(g, 'GET', `/${held.id}?phone_number_id=${g.phoneNumberId}`);
    expect(info.body).toEqual({
      messaging_product: 'whatsapp',
      url: expect.stringContaining('/whatsapp_business/attachments/?mid='),
      mime_type: 'image/png',
      sha256: held.sha256,
      file_size: PNG.length,
      id: held.id,
    });
    const get = (token: string | null) =>
      fetch(info.body.url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
    expect((await get(null)).status).toBe(401);
    const file = await get(g.accessToken);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await file.arrayBuffer()).equals(PNG)).toBe(true);
    g.failNextDownload({ status: 500 });
    expect((await get(g.accessToken)).status).toBe(500);
    now += 5 * 60_000 + 1;
    expect((await get(g.accessToken)).status).toBe(404);
    const wrongNumber = await call(g, 'GET', `/${held.id}?phone_number_id=1`);
    expect(wrongNumber.status).toBe(400);
  });
});
