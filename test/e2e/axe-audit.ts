import { createRequire } from 'node:module';
import type { Page } from '@playwright/test';

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/**
 * axe's critical and serious findings on the page as it is, and whether it has one h1. axe is
 * injected as a script, which the app's CSP refuses: the page's context must bypass it.
 */
export async function audit(page: Page, where: string): Promise<string[]> {
  await page.evaluate(() => Promise.all(document.getAnimations().map((a) => a.finished)));
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE_PATH });
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (...args: unknown[]) => Promise<unknown> } })
      .axe;
    const result = (await axe.run(document, {
      runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'],
    })) as { violations: { id: string; impact: string | null; nodes: { target: unknown[] }[] }[] };
    return result.violations;
  });
  const h1s = await page.locator('h1').count();
  return violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .map((v) => `[${where}] ${v.id}: ${JSON.stringify(v.nodes.slice(0, 3).map((n) => n.target))}`)
    .concat(h1s === 1 ? [] : [`[${where}] ${h1s} h1`]);
}
