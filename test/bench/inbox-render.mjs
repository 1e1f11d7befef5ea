// The inbox's first render in Chromium: ms from navigation start until the first conversation
// row is painted, then a long wheel scroll down the list counting DOM rows (the list is
// virtualised: it must stay under 100) and long tasks (> 50 ms main-thread blocks, i.e. janky
// frames). Called by test/bench/run.mjs against the seeded 100k-conversation store; standalone:
//   node test/bench/inbox-render.mjs http://127.0.0.1:PORT [LOGIN_URL | DATA_DIR]
// The browser signs in first through the sign-in link `parley serve` printed (given, or read
// with `parley login-url` from the data dir; by default the one serve last wrote, PARLEY_DATA_DIR).
/* global document, window, requestAnimationFrame, MutationObserver -- in-page code */
import { chromium } from 'playwright-core';
import { chromiumLaunchOptions } from '../chromium.mjs';
import { fileURLToPath } from 'node:url';
import { loginUrl, longTasksSince, signedInContext, watchLongTasks } from './serve-common.mjs';

/** The sign-in link for the server at baseUrl: given as is, or asked of `parley login-url`. */
function signInLink(baseUrl, loginUrlOrDataDir) {
  if (loginUrlOrDataDir && /^http:\/\//.test(loginUrlOrDataDir)) return loginUrlOrDataDir;
  return loginUrl(new URL(baseUrl).port, loginUrlOrDataDir);
}

const ROW = '[data-testid=conversation-row]';
const LIST = '[data-testid=conversation-list]';
const WHEEL_STEPS = 20;
const WHEEL_PX = 1500;
/** How long a step may wait for the next page once the loaded end is reached (a bound, not a sleep). */
const PAGE_WAIT_MS = 3000;

/** Runs in the page before any of its scripts (after watchLongTasks): notes the first row's paint. */
function instrument(rowSelector) {
  window.__bench = { ...window.__bench, firstRowMs: null };
  const seen = () => {
    if (window.__bench.firstRowMs !== null || !document.querySelector(rowSelector)) return false;
    // The row is in the DOM; it is on screen once the frame that lays it out has been painted.
    requestAnimationFrame(() =>
      setTimeout(() => {
        if (window.__bench.firstRowMs === null) window.__bench.firstRowMs = performance.now();
      }, 0),
    );
    return true;
  };
  const observer = new MutationObserver(() => {
    if (seen()) observer.disconnect();
  });
  observer.observe(document, { childList: true, subtree: true });
}

/** Resolves after the browser has produced the next frame. */
const nextFrame = (page) =>
  page.evaluate(
    () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))),
  );

/**
 * Signs in, then opens `${baseUrl}/#/inbox` in a fresh Chromium context and measures it.
 * @param {string} baseUrl e.g. http://127.0.0.1:4780
 * @param {string} [loginUrlOrDataDir] the printed sign-in link, or the server's data dir
 * @returns {Promise<{firstRowMs: number, domRows: number, maxDomRows: number, longTasks: number,
 *   longTaskMs: number, loadedRows: number, scrolledPx: number}>}
 */
export async function measureInboxRender(baseUrl, loginUrlOrDataDir) {
  const link = signInLink(baseUrl, loginUrlOrDataDir);
  const browser = await chromium.launch(chromiumLaunchOptions);
  try {
    // The measured load starts signed in, on the UI's own origin.
    const { context, uiOrigin } = await signedInContext(browser, link);
    const page = await context.newPage();
    await page.addInitScript(watchLongTasks);
    await page.addInitScript(instrument, ROW);
    await page.goto(`${uiOrigin}/#/inbox`, { waitUntil: 'commit' });
    await page.waitForSelector(ROW, { timeout: 30_000 });
    await page.waitForFunction(() => window.__bench.firstRowMs !== null, null, { timeout: 10_000 });
    const firstRowMs = await page.evaluate(() => window.__bench.firstRowMs);
    const rows = () => page.locator(ROW).count();
    const domRows = await rows();

    // Scroll a long way down with the wheel, as an agent would, paging in as the end nears.
    const list = page.locator(LIST);
    const box = await list.boundingBox();
    if (!box) throw new Error('the conversation list is not on screen');
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const scrollStart = await page.evaluate(() => performance.now());
    let maxDomRows = domRows;
    for (let step = 0; step < WHEEL_STEPS; step++) {
      await page.mouse.wheel(0, WHEEL_PX);
      await nextFrame(page);
      maxDomRows = Math.max(maxDomRows, await rows());
      const atEnd = await list.evaluate(
        (el) => el.scrollHeight - el.scrollTop - el.clientHeight < 4,
      );
      if (atEnd) {
        const height = await list.evaluate((el) => el.scrollHeight);
        await page
          .waitForFunction(
            ([selector, before]) => document.querySelector(selector).scrollHeight > before,
            [LIST, height],
            { timeout: PAGE_WAIT_MS },
          )
          .catch(() => {
            // Everything is loaded (or the page is slow): carry on with what is there.
          });
      }
    }
    await nextFrame(page);
    maxDomRows = Math.max(maxDomRows, await rows());
    const { count: longTasks, totalMs: longTaskMs } = await longTasksSince(page, scrollStart);
    const { scrolledPx, loadedRows } = await list.evaluate((el) => ({
      scrolledPx: Math.round(el.scrollTop),
      loadedRows: Math.round(
        el.scrollHeight / (el.querySelector('[data-testid=conversation-row]')?.offsetHeight || 1),
      ),
    }));
    await context.close();
    return {
      firstRowMs: Math.round(firstRowMs),
      domRows,
      maxDomRows,
      longTasks,
      longTaskMs,
      loadedRows,
      scrolledPx,
    };
  } finally {
    await browser.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [url, login] = process.argv.slice(2);
  if (!url) {
    console.error('usage: node test/bench/inbox-render.mjs BASE_URL [LOGIN_URL | DATA_DIR]');
    process.exit(2);
  }
  console.log(await measureInboxRender(url, login));
}
