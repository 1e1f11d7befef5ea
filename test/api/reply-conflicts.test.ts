import { afterEach, describe, expect, it } from 'vitest';
import type { TestCore } from '../helpers.ts';
import { makeCore } from '../helpers.ts';

/**
 * No double answers (design.md §6): a reply or note based on a message that is no longer the
 * newest answers 409 `conversation_changed` with the newer message from someone else; sending
 * again based on that message goes through ("Send anyway").
 */
let t: TestCore;
afterEach(async () => t?.close());

const PHONE = '+4915112345678';

async function setUp() {
  t = await makeCore();
  const key = t.key('test');
  const ana = await t.member({ name: 'Ana', role: 'agent' });
  const ben = await t.member({ name: 'Ben', role: 'agent' });
  const inbound = await t.request('POST', '/api/simulator/inbound', {
    key,
    body: { phone: PHONE, message: 'Where is my order?' },
  });
  expect(inbound.status).toBe(200);
  const conv = inbound.body.conversationId as string;
  const reply = (cookie: string, body: Record<string, unknown>) =>
    t.request('POST', `/conversations/${conv}/reply`, { cookie, body });
  const count = () =>
    t.core.services.db
      .prepare('SELECT count(*) FROM messages WHERE conversation_id = ?')
      .pluck()
      .get(conv) as number;
  return { key, ana, ben, conv, first: inbound.body.id as string, reply, count };
}

describe('replies based on a message', () => {
  it('of two members replying on the same basis, exactly one gets through; the other sees the reply and sends anyway', async () => {
    const { ana, ben, first, reply, count } = await setUp();
    const [a, b] = await Promise.all([
      reply(ana.cookie, { text: 'It ships today.', basedOnMessageId: first }),
      reply(ben.cookie, { text: 'Let me check.', basedOnMessageId: first }),
    ]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([200, 409]);
    const [sent, refused] = a.status === 200 ? [a, b] : [b, a];
    expect(refused.body.error).toMatchObject({
      code: 'conversation_changed',
      param: 'basedOnMessageId',
      details: {
        message: {
          id: sent.body.id,
          text: sent.body.text,
          direction: 'outbound',
          sentBy: 'agent',
          agentId: sent.body.agentId,
        },
      },
    });
    // The refused reply was not stored.
    expect(count()).toBe(2);
    // "Send anyway": based on the message it was shown.
    const loser = refused === b ? ben : ana;
    const anyway = await reply(loser.cookie, {
      text: 'Let me check.',
      basedOnMessageId: refused.body.error.details.message.id,
    });
    expect(anyway.status).toBe(200);
    expect(count()).toBe(3);
  });

  it('notes follow the same rule; one’s own messages and the customer’s never conflict', async () => {
    const { key, ana, ben, first, reply } = await setUp();
    const note = await reply(ana.cookie, {
      text: 'Refund approved',
      private: true,
      basedOnMessageId: first,
    });
    expect(note.status).toBe(200);
    // Ana's own note does not stop her reply.
    expect((await reply(ana.cookie, { text: 'Refunded.', basedOnMessageId: first })).status).toBe(
      200,
    );
    // Ben's reply, and his note, based on the first message: Ana wrote since.
    const late = await reply(ben.cookie, { text: 'Hi!', basedOnMessageId: first });
    expect(late.status).toBe(409);
    expect(late.body.error.details.message).toMatchObject({ text: 'Refunded.', agentId: ana.id });
    const lateNote = await reply(ben.cookie, {
      text: 'FYI',
      private: true,
      basedOnMessageId: note.body.id,
    });
    expect(lateNote.status).toBe(409);
    // The customer writing again is no conflict: Ben answers based on what he saw.
    const again = await t.request('POST', '/api/simulator/inbound', {
      key,
      body: { phone: PHONE, message: 'Thanks!' },
    });
    const basis = late.body.error.details.message.id;
    expect(again.body.id > basis).toBe(true);
    expect((await reply(ben.cookie, { text: 'Welcome!', basedOnMessageId: basis })).status).toBe(
      200,
    );
    // Without a basis: no check, as before.
    expect((await reply(ana.cookie, { text: 'Bye!' })).status).toBe(200);
  });

  it('counts the API’s and the bot’s messages as someone else’s; a basis from another conversation is a 400', async () => {
    const { key, ana, first, reply } = await setUp();
    const api = await t.request('POST', '/api/send-text', {
      key,
      body: { phone: PHONE, message: 'Your parcel is out for delivery.' },
    });
    expect(api.status).toBe(200);
    const refused = await reply(ana.cookie, { text: 'Hello', basedOnMessageId: first });
    expect(refused.status).toBe(409);
    expect(refused.body.error.details.message).toMatchObject({
      id: api.body.data.messageId,
      sentBy: 'api',
    });
    expect(refused.body.error.message).toMatch(/the API/);
    // An API key replying is never "the same person" as an earlier message: any newer counts.
    const byKey = await t.request('POST', `/conversations/${api.body.data.conversationId}/reply`, {
      key,
      body: { text: 'Bot here', as: 'bot', basedOnMessageId: first },
    });
    expect(byKey.status).toBe(409);

    const other = await t.request('POST', '/api/simulator/inbound', {
      key,
      body: { phone: '+4915187654321', message: 'Hi' },
    });
    const wrong = await reply(ana.cookie, { text: 'Hello', basedOnMessageId: other.body.id });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({
      code: 'validation_error',
      param: 'basedOnMessageId',
    });
  });
});
