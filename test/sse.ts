import http from 'node:http';
import { expect } from 'vitest';

/** A real SSE client for the API tests: fetch and parse, as a third party would. */
export interface SseEvent {
  id: string;
  event: string;
  data: { id: string; type: string; environment: string; data: Record<string, unknown> };
}

/**
 * Takes the complete frames off the front of `buffer` (what arrived so far): each event and
 * comment goes to its callback; returns what is left (a frame still arriving).
 */
function takeFrames(
  buffer: string,
  onEvent: (e: SseEvent) => void,
  onComment: (text: string) => void = () => {},
): string {
  let i;
  while ((i = buffer.indexOf('\n\n')) >= 0) {
    const block = buffer.slice(0, i);
    buffer = buffer.slice(i + 2);
    const fields: Record<string, string> = {};
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) onComment(line.slice(1).trim());
      const m = /^(\w+): ?(.*)$/.exec(line);
      if (m) fields[m[1]!] = m[2]!;
    }
    if (fields.event) {
      onEvent({ id: fields.id!, event: fields.event, data: JSON.parse(fields.data!) });
    }
  }
  return buffer;
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
    buffer = takeFrames(
      buffer + decoder.decode(value, { stream: true }),
      (e) => events.push(e),
      (c) => comments.push(c),
    );
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

/**
 * Follows an SSE stream until `close()`: `events` grows as they come, `waitFor` resolves with
 * the first event (already received or still to come) that matches, or rejects at its
 * deadline. Resolves once the server answered (it has subscribed). Over node:http, so that
 * `close()` closes the connection at once, as a closed browser tab does (an aborted fetch
 * leaves its socket to undici's keep-alive, and the server's shutdown waits for it).
 */
export async function followEvents(
  url: string,
  headers: Record<string, string>,
): Promise<{
  events: SseEvent[];
  waitFor(match: (e: SseEvent) => boolean, deadlineMs?: number): Promise<SseEvent>;
  /** Resolves when the stream ends (either side). */
  ended: Promise<void>;
  close(): void;
}> {
  const req = http.get(url, { headers, agent: false });
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/text\/event-stream/);
  res.setEncoding('utf8');
  const events: SseEvent[] = [];
  const waiters = new Set<() => void>();
  let over = false;
  let buffer = '';
  res.on('data', (chunk: string) => {
    buffer = takeFrames(buffer + chunk, (e) => {
      events.push(e);
      for (const w of waiters) w();
    });
  });
  const ended = new Promise<void>((resolve) => {
    const end = () => {
      over = true;
      for (const w of waiters) w();
      resolve();
    };
    res.once('close', end);
    req.once('error', end);
  });
  return {
    events,
    ended,
    waitFor(match, deadlineMs = 5000) {
      return new Promise<SseEvent>((resolve, reject) => {
        const check = () => {
          const hit = events.find(match);
          if (hit) {
            done();
            resolve(hit);
          } else if (over) {
            done();
            reject(new Error(`the stream ended first; it had: ${events.map((e) => e.event)}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(
            new Error(`no such event in ${deadlineMs} ms; got: ${events.map((e) => e.event)}`),
          );
        }, deadlineMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close: () => req.destroy(),
  };
}
