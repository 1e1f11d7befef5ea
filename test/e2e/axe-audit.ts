import { createRequire } from 'node:module';
import type { Page } from '@playwright/test';

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/**
 * axe's critical and serious findings on the page as it is, and whether it has one h1. axe is
 * injected as a script, which the app's CSP refuses: the page's context must bypass it.
 * `extraRules` are rules the tags leave out (axe's experimental ones, such as
 * `label-content-name-mismatch`), run as well; each must have run, or that is a finding too.
 */
export async function audit(
  page: Page,
  where: string,
  { extraRules = [] }: { extraRules?: string[] } = {},
): Promise<string[]> {
  // Judge the colours things come to rest with; an animation cancelled meanwhile (its element
  // re-rendered) rejects `finished`, and an endless one never settles: neither is waited for.
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((a) => a.effect?.getComputedTiming().iterations !== Infinity)
        .map((a) => a.finished.catch(() => undefined)),
    ),
  );
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE_PATH });
  const { violations, ran } = await page.evaluate(async (extra) => {
    type Rule = { id: string; impact: string | null; nodes: { target: unknown[] }[] };
    const axe = (window as unknown as { axe: { run: (...args: unknown[]) => Promise<unknown> } })
      .axe;
    const tags = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];
    const result = (await axe.run(document, {
      runOnly: { type: 'tag', values: tags },
      rules: Object.fromEntries(extra.map((id) => [id, { enabled: true }])),
    })) as Record<'violations' | 'passes' | 'incomplete' | 'inapplicable', Rule[]>;
    const ran = [result.violations, result.passes, result.incomplete, result.inapplicable]
      .flat()
      .map((r) => r.id);
    return { violations: result.violations, ran };
  }, extraRules);
  const h1s = await page.locator('h1').count();
  return violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .map((v) => `[${where}] ${v.id}: ${JSON.stringify(v.nodes.slice(0, 3).map((n) => n.target))}`)
    .concat(h1s === 1 ? [] : [`[${where}] ${h1s} h1`])
    .concat(
      extraRules.filter((id) => !ran.includes(id)).map((id) => `[${where}] ${id} did not run`),
    );
}
