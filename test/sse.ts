import { expect } from 'vitest';

/** A real SSE client for the API tests: fetch and parse, as a third party would. */
export interface SseEvent {
  id: string;
  event: string;
  data: { id: string; type: string; environment: string; data: Record<string, unknown> };
}

/**
 * Reads an SSE stream with fetch until `count` events (or the deadline), then aborts. `onOpen`
 * runs once the server answered (it has subscribed): cause events there, not after a sleep.
 */
export async function readEvents(
  url: string,
  headers: Record<string, string>,
  count: number,
  onOpen?: () => Promise<void> | void,
  deadlineMs = 10_000,
): Promise<{ events: SseEvent[]; comments: string[] }> {
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let buffer = '';
  const opened = onOpen?.();
  const deadline = Date.now() + deadlineMs;
  while (events.length < count && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let i;
    while ((i = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, i);
      buffer = buffer.slice(i + 2);
      const fields: Record<string, string> = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) comments.push(line.slice(1).trim());
        const m = /^(\w+): ?(.*)$/.exec(line);
        if (m) fields[m[1]!] = m[2]!;
      }
      if (fields.event)
        events.push({ id: fields.id!, event: fields.event, data: JSON.parse(fields.data!) });
    }
  }
  await opened;
  controller.abort();
  return { events, comments };
}

/**
 * Opens an SSE stream with fetch and keeps reading it: `ended` resolves when the server closes
 * it (the test's own timeout is the deadline); `close()` aborts it from this side.
 */
export async function openStream(
  url: string,
  headers: Record<string, string>,
): Promise<{ ended: Promise<void>; close: () => void }> {
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
  const reader = res.body!.getReader();
  const ended = (async () => {
    try {
      for (;;) if ((await reader.read()).done) return;
    } catch (e) {
      // Closed from this side: not the server ending it, and nobody waits for it any more.
      if (!controller.signal.aborted) throw e;
    }
  })();
  return { ended, close: () => controller.abort() };
}
