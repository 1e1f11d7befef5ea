import { describe, expect, it } from 'vitest';
import { ApiRequestError } from '../../renderer/src/api/client.ts';
import {
  sendableFrom,
  templateNotReadyMessage,
} from '../../renderer/src/components/template-wait.ts';
import { isUsable } from '../../renderer/src/stores/approved-templates.ts';

const isWaiting = (template: Template, now: number) => !isUsable(template, now);
import type { Template } from '../../shared/schemas/index.ts';

const localClock = (iso: string) =>
  new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' }).format(new Date(iso));

describe('a template inside its post-approval wait', () => {
  const usableAt = '2026-03-02T14:25:00.000Z';
  const sameDay = Date.parse('2026-03-02T14:15:00.000Z');

  it('is waiting until its usableAt, then sendable', () => {
    const template = { status: 'APPROVED', usableAt } as Template;
    expect(isWaiting(template, sameDay)).toBe(true);
    expect(isWaiting(template, Date.parse(usableAt))).toBe(false);
    expect(isWaiting({ status: 'APPROVED', usableAt: null } as Template, sameDay)).toBe(false);
  });

  it('says when in local time, never the raw UTC timestamp', () => {
    expect(sendableFrom(usableAt, sameDay)).toBe(localClock(usableAt));
    const error = new ApiRequestError(
      422,
      'template_not_ready',
      `template "order_update" can be sent from ${usableAt}`,
      { details: { usableAt } },
    );
    const message = templateNotReadyMessage(error);
    expect(message).toContain(`sendable from ${sendableFrom(usableAt)}`);
    expect(message).not.toContain(usableAt);
    expect(message).not.toContain('T14:25');
  });

  it('leaves other failures to the API’s own message', () => {
    expect(templateNotReadyMessage(new ApiRequestError(422, 'template_paused', 'paused'))).toBe(
      null,
    );
    expect(templateNotReadyMessage(new Error('boom'))).toBe(null);
  });
});
