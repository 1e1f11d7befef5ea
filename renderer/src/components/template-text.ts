import type { Template } from '../../../shared/schemas/index.ts';
import { VARIABLE_PATTERN } from '../../../shared/template-rules.ts';

export type TextSegment =
  { kind: 'text'; text: string } | { kind: 'variable'; n: number; value: string };

/** Splits a component's text around its variables, for the preview. */
export function segments(text: string, samples: Record<string, string>): TextSegment[] {
  const out: TextSegment[] = [];
  let last = 0;
  for (const match of text.matchAll(VARIABLE_PATTERN)) {
    const index = match.index ?? 0;
    if (index > last) out.push({ kind: 'text', text: text.slice(last, index) });
    const n = Number(match[1]);
    out.push({ kind: 'variable', n, value: samples[String(n)] ?? '' });
    last = index + match[0].length;
  }
  if (last < text.length) out.push({ kind: 'text', text: text.slice(last) });
  return out;
}

/** Fills the variables with values (unknown ones stay as written), as the recipient reads it. */
export const fillVariables = (text: string, values: Record<string, string>): string =>
  segments(text, values)
    .map((s) => (s.kind === 'text' ? s.text : s.value || `{{${s.n}}}`))
    .join('');

/** The text of a template's header, body or footer ('' when it has none). */
export const componentText = (template: Template, type: 'HEADER' | 'BODY' | 'FOOTER'): string =>
  template.components.find((c) => c.type === type)?.text ?? '';
