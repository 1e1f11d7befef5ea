/**
 * Media, reactions and quotes in the inbox (issue 22), in Chromium against `parley serve`: the
 * customer is played from the thread's test-mode simulator panel (issue 24 §4) — a photo, a voice
 * note and a PDF arrive and render (the image decoded, the audio playable, the file card
 * downloading the very bytes of the sample); the agent drops an image on the composer, captions
 * and sends it; reacts to a message; quotes one and jumps back to it from the quote. The panel
 * also sends a text, a list pick, a location and a contact card, quoting a message; it is axe
 * clean and never shown in live mode.
 */
import type { APIRequestContext, Locator, Page } from '@playwright/test';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { audit } from './axe-audit.ts';
import {
  apiPost,
  createApiKey,
  expect,
  signInLink,
  simulateInbound,
  test,
  waitForLiveUpdates,
} from './fixtures.ts';

const SAMPLES = fileURLToPath(new URL('../../main/core/media/simulator-samples/', import.meta.url));
const sample = (name: string) => readFile(path.join(SAMPLES, name));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

const PHONE = '+14155552690';

/** The customer's first words (a conversation in test mode), then its thread, live. */
async function openThread(page: Page, request: APIRequestContext, key: string): Promise<Locator> {
  await simulateInbound(request, key, { phone: PHONE, message: 'Hi, my parcel arrived broken.' });
  await page.goto('/#/inbox');
  await waitForLiveUpdates(page);
  await page.getByTestId('conversation-row').filter({ hasText: PHONE }).click();
  await expect(page.getByTestId('thread').getByTestId('thread-title')).toHaveText(PHONE);
  return page.getByTestId('thread-messages');
}

/** The simulator panel, opened from its toggle by the keyboard. */
async function openSimulator(page: Page): Promise<Locator> {
  const panel = page.getByTestId('simulator-panel');
  const toggle = panel.getByTestId('simulator-toggle');
  await expect(panel).toContainText('Customer (simulated)');
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') {
    await toggle.focus();
    await page.keyboard.press('Enter');
  }
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  return panel;
}

/** The `<img>` a media-image test id names: the element itself or the one inside it. */
const imageLoaded = (image: Locator) =>
  image.evaluate((el) => {
    const img = el instanceof HTMLImageElement ? el : el.querySelector('img');
    return img !== null && img.complete ? img.naturalWidth : 0;
  });

/**
 * Whether the `<audio>` a media-audio test id names can play: it reaches canplay (its preload
 * raised to auto, as pressing play would), or the reason it cannot; with the src it plays.
 */
const audioPlayable = (audio: Locator) =>
  audio.evaluate(
    (el) =>
      new Promise<{ playable: boolean | string; src: string }>((resolve) => {
        const a = el instanceof HTMLAudioElement ? el : el.querySelector('audio');
        if (!a) return resolve({ playable: 'no <audio> element', src: '' });
        const src = a.currentSrc || a.src || a.querySelector('source')?.src || '';
        if (a.readyState >= HTMLMediaElement.HAVE_FUTURE_DATA)
          return resolve({ playable: true, src });
        const timer = setTimeout(
          () => resolve({ playable: `readyState ${a.readyState} after 8 s`, src }),
          8000,
        );
        a.addEventListener('canplay', () => {
          clearTimeout(timer);
          resolve({ playable: true, src: a.currentSrc || src });
        });
        a.addEventListener('error', () => {
          clearTimeout(timer);
          resolve({ playable: `error ${a.error?.code}: ${a.error?.message}`, src });
        });
        a.preload = 'auto';
        a.load();
      }),
  );

test('a simulated customer sends a photo, a voice note and a PDF: the image loads, the voice note plays, the file downloads as sent', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test');
  const thread = await openThread(page, request, key);
  const panel = await openSimulator(page);

  await panel.getByTestId('simulate-caption').fill('The box, as it arrived');
  await panel.getByTestId('simulate-photo').click();
  await expect(panel).toContainText('The customer sent a photo.');
  await panel.getByTestId('simulate-voice').click();
  await expect(panel).toContainText('The customer sent a voice note.');
  await panel.getByTestId('simulate-document').click();
  await expect(panel).toContainText('The customer sent a PDF.');

  // The photo, with its caption, decoded by the browser once the core has fetched it.
  const photo = thread.getByTestId('message').filter({ hasText: 'The box, as it arrived' });
  const image = photo.getByTestId('media-image');
  await expect(image).toBeVisible();
  await expect.poll(() => imageLoaded(image), { timeout: 15_000 }).toBeGreaterThan(0);
  // It opens in the viewer, which Escape closes.
  await image.click();
  await expect(page.getByTestId('media-viewer')).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('media-viewer')).toHaveCount(0);

  // The voice note: a player that can play it, its source Opus in OGG.
  const audio = thread.getByTestId('media-audio');
  await expect(audio).toHaveCount(1);
  const voice = await audioPlayable(audio);
  expect(voice.playable, `the voice note plays (${voice.src})`).toBe(true);
  const served = await page.request.get(voice.src);
  expect(served.status()).toBe(200);
  expect(served.headers()['content-type']).toMatch(/^audio\/ogg/);
  expect(sha256(await served.body())).toBe(sha256(await sample('voice-note.ogg')));

  // The PDF: a file card with its name; its download is the sample's very bytes.
  const file = thread.getByTestId('media-file');
  await expect(file).toContainText('invoice-17.pdf');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    file.getByTestId('media-file-download').click(),
  ]);
  expect(download.suggestedFilename()).toBe('invoice-17.pdf');
  const saved = await readFile(await download.path());
  expect(sha256(saved)).toBe(sha256(await sample('invoice.pdf')));
});

test('the agent drops an image on the composer, captions it and sends it: the bubble shows both', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test');
  const thread = await openThread(page, request, key);
  const bytes = await sample('photo.png');

  // A file dragged in from the desktop: a DataTransfer holding it, dropped on the drop zone.
  await page.getByTestId('drop-zone').evaluate(
    (zone, { base64, name }) => {
      const data = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([data], name, { type: 'image/png' }));
      for (const type of ['dragenter', 'dragover', 'drop']) {
        zone.dispatchEvent(
          new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }),
        );
      }
    },
    { base64: bytes.toString('base64'), name: 'replacement-label.png' },
  );
  const preview = page.getByTestId('attachment-preview');
  await expect(preview).toBeVisible();
  await expect(page.getByTestId('attachment-error')).toHaveCount(0);
  await page.getByTestId('attachment-caption').fill('Your replacement label');
  await page.getByTestId('reply-send').click();

  const sent = thread.getByTestId('message').filter({ hasText: 'Your replacement label' });
  await expect(sent).toHaveCount(1);
  await expect.poll(() => imageLoaded(sent.getByTestId('media-image'))).toBeGreaterThan(0);
  await expect(preview).toHaveCount(0);

  // What went out is the file that was dropped, byte for byte.
  const page1 = await request.get(`/messages?phone=${encodeURIComponent(PHONE)}`, {
    headers: { 'X-API-Key': key },
  });
  const newest = ((await page1.json()) as { data: Record<string, unknown>[] }).data[0]!;
  expect(newest).toMatchObject({
    direction: 'outbound',
    type: 'media',
    text: 'Your replacement label',
    media: { type: 'image', mimeType: 'image/png', sha256: sha256(bytes) },
  });
});

test('the agent reacts to a message, and quotes one: the quote shows above the reply and jumps back to it', async ({
  page,
  request,
  server,
}) => {
  const key = await createApiKey(server, 'test');
  // The question, then enough talk after it that it scrolls out of view.
  const start = Date.now() - 3600_000;
  await simulateInbound(request, key, {
    phone: PHONE,
    message: 'Where is my order ORD-7?',
    receivedAt: new Date(start).toISOString(),
  });
  for (let i = 1; i <= 20; i++) {
    await simulateInbound(request, key, {
      phone: PHONE,
      message: `And another thing, number ${i}.`,
      receivedAt: new Date(start + i * 1000).toISOString(),
    });
  }
  const thread = await openThread(page, request, key);
  // The question itself, not the reply that will quote it.
  const question = thread
    .getByTestId('message')
    .filter({ hasText: 'Where is my order ORD-7?', hasNot: page.getByTestId('quoted-message') });

  await question.hover();
  await question.getByTestId('react-button').click();
  await page.getByTestId('react-picker').getByRole('button', { name: 'React 👍' }).click();
  await expect(question.getByTestId('reaction-badge')).toContainText('👍');

  await question.hover();
  await question.getByTestId('reply-button').click();
  const quote = page.getByTestId('quote-preview');
  await expect(quote).toContainText('Where is my order ORD-7?');
  await page.getByTestId('reply-text').fill('It left our warehouse this morning.');
  await page.getByTestId('reply-send').click();
  await expect(quote).toHaveCount(0);

  const answer = thread.getByTestId('message').filter({ hasText: 'It left our warehouse' });
  const quoted = answer.getByTestId('quoted-message');
  await expect(quoted).toContainText('Where is my order ORD-7?');
  // The thread follows the new reply; the question is far above it, until the quote is clicked.
  await expect(answer).toBeInViewport();
  await expect(question).not.toBeInViewport();
  await quoted.click();
  await expect(question).toBeInViewport();
});

test('the simulator panel plays the customer: a text, a list pick, a location, a contact card and a quote; axe clean; never in live mode', async ({
  page,
  request,
  server,
  browser,
}) => {
  const key = await createApiKey(server, 'test');
  const list = (await apiPost(request, key, '/interactive-lists', {
    name: 'Delivery options',
    body: 'Choose a delivery slot for your order.',
    buttonText: 'Pick a slot',
    sections: [
      {
        title: 'Tomorrow',
        rows: [
          { id: 'am', title: 'Morning', description: '8:00 to 12:00' },
          { id: 'pm', title: 'Afternoon' },
        ],
      },
    ],
  })) as { id: string };
  await simulateInbound(request, key, { phone: PHONE, message: 'When can you deliver?' });
  await apiPost(request, key, '/api/send-list', { phone: PHONE, listId: list.id });
  const thread = await openThread(page, request, key);
  const panel = await openSimulator(page);

  // A text, sent with Enter.
  await panel.getByTestId('simulate-text-input').fill('Do you deliver on Sundays?');
  await page.keyboard.press('Enter');
  const text = thread.getByTestId('message').filter({ hasText: 'Do you deliver on Sundays?' });
  await expect(text).toHaveCount(1);
  await expect(panel.getByTestId('simulate-text-input')).toHaveValue('');

  // A row of the last list sent.
  await panel.getByTestId('simulate-list-row').selectOption({ label: 'Afternoon' });
  await panel.getByTestId('simulate-list-pick').click();
  await expect(thread.getByTestId('list-pick').filter({ hasText: 'Afternoon' })).toHaveCount(1);

  // A location and a shared contact card.
  await panel.getByTestId('simulate-location').click();
  await expect(thread.getByTestId('location-card')).toContainText('Alexanderplatz');
  await panel.getByTestId('simulate-contact').click();
  await expect(thread.getByTestId('contact-card')).toContainText('Sam Rivera');

  // A text quoting the customer's earlier question.
  await panel
    .getByTestId('simulate-quote')
    .selectOption({ label: 'Customer: Do you deliver on Sundays?' });
  await panel.getByTestId('simulate-text-input').fill('Any news?');
  await panel.getByTestId('simulate-text').click();
  const followUp = thread.getByTestId('message').filter({ hasText: 'Any news?' });
  await expect(followUp.getByTestId('quoted-message')).toContainText('Do you deliver on Sundays?');
  await expect(panel.getByTestId('simulate-quote')).toHaveValue('');
  await expect(panel.getByTestId('simulate-error')).toHaveCount(0);

  // Live mode has no simulated customer: a live conversation's thread shows no panel.
  const live = await createApiKey(server, 'live', 'e2e-live-media');
  await apiPost(request, live, '/conversations', { phone: '+14155552691' });
  await page.getByTestId('mode-live').click();
  await expect(page.getByTestId('mode-live')).toHaveAttribute('aria-pressed', 'true');
  await page.getByTestId('conversation-row').filter({ hasText: '+14155552691' }).click();
  await expect(page.getByTestId('thread').getByTestId('thread-title')).toHaveText('+14155552691');
  await expect(page.getByTestId('simulator-panel')).toHaveCount(0);

  // axe, on the thread with the panel open (a context without CSP: axe runs as a script).
  const context = await browser.newContext({ bypassCSP: true });
  const login = await context.request.get(await signInLink(server), { maxRedirects: 0 });
  expect(login.status()).toBe(303);
  const axePage = await context.newPage();
  await axePage.goto('/#/inbox');
  await axePage.getByTestId('conversation-row').filter({ hasText: PHONE }).click();
  await openSimulator(axePage);
  await expect(axePage.getByTestId('simulate-list-row')).toBeVisible();
  const found = await audit(axePage, 'inbox thread, simulator panel open');
  expect(found, found.join('\n')).toEqual([]);
  await context.close();
});
