/**
 * The step registry: every step type is one module on each side, under one name — its rules in
 * shared/workflow-steps/, its executor in main/core/modules/workflows/steps/, its editor in
 * renderer/src/screens/workflows/steps/ — and each registry holds exactly those. A type added to
 * the union without all three (or a module nobody registered) fails here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { STEP_EXECUTORS } from '../../main/core/modules/workflows/steps/index.ts';
import { STEP_EDITORS } from '../../renderer/src/screens/workflows/steps/index.ts';
import { STEP_FIELDS, workflowProblems } from '../../shared/workflow-rules.ts';
import { STEP_KINDS, STEP_TYPES, stepLabel } from '../../shared/workflow-steps/index.ts';

const root = path.resolve(import.meta.dirname, '../..');
const FOLDERS = {
  shared: { dir: 'shared/workflow-steps', ext: '.ts', registry: STEP_KINDS },
  core: { dir: 'main/core/modules/workflows/steps', ext: '.ts', registry: STEP_EXECUTORS },
  ui: { dir: 'renderer/src/screens/workflows/steps', ext: '.tsx', registry: STEP_EDITORS },
} as const;
/** The folder's files that are not a step type: the registry and the type's contract. */
const FRAME = new Set(['index', 'step-kind', 'step-executor', 'step-editor']);
const fileOf = (type: string) => type.replace(/_/g, '-');

describe('the step registry', () => {
  it('has a type for every step of the contract', () => {
    expect([...STEP_TYPES].sort()).toEqual(
      [
        'assign',
        'branch',
        'end',
        'send_list',
        'send_template',
        'send_text',
        'update_conversation',
        'wait',
        'wait_for_reply',
        'webhook',
      ].sort(),
    );
  });

  for (const [side, { dir, ext, registry }] of Object.entries(FOLDERS)) {
    it(`${side}: every step type has its module in ${dir}/, registered under its type`, () => {
      for (const type of STEP_TYPES) {
        const file = path.join(root, dir, `${fileOf(type)}${ext}`);
        expect([type, fs.existsSync(file)]).toEqual([type, true]);
        expect([type, registry[type]?.type]).toEqual([type, type]);
      }
      expect(Object.keys(registry).sort()).toEqual([...STEP_TYPES].sort());
    });

    it(`${side}: ${dir}/ holds no step module the registry misses`, () => {
      const modules = fs
        .readdirSync(path.join(root, dir))
        .filter((f) => f.endsWith(ext) && !FRAME.has(f.slice(0, -ext.length)))
        .map((f) => f.slice(0, -ext.length))
        .sort();
      expect(modules).toEqual(STEP_TYPES.map(fileOf).sort());
    });
  }

  it('gives every type a label, fields it requires among its fields, and a fresh-step form', () => {
    for (const type of STEP_TYPES) {
      const kind = STEP_KINDS[type];
      expect(stepLabel(type)).toBe(kind.label);
      expect(kind.label.length).toBeGreaterThan(2);
      expect(STEP_FIELDS[type]).toBe(kind.fields);
      for (const field of kind.required) {
        expect([type, field, kind.fields.includes(field)]).toEqual([type, field, true]);
      }
      const editor = STEP_EDITORS[type];
      expect(editor.hint.length).toBeGreaterThan(5);
      expect(editor.idPrefix).toMatch(/^[a-z]+$/);
      for (const field of Object.keys(editor.defaults)) {
        expect([type, (kind.fields as readonly string[]).includes(field)]).toEqual([type, true]);
      }
    }
    expect(stepLabel('sleep')).toBe('sleep');
  });

  it('checks a step through its type: an unknown type is refused naming the types', () => {
    const problems = workflowProblems({
      name: 'Flow',
      trigger: { type: 'manual' },
      steps: [{ id: 'x', type: 'sleep' as 'end' }],
    });
    expect(problems).toEqual([
      { param: 'steps.0.type', message: `Choose what the step does (${STEP_TYPES.join(', ')})` },
    ]);
  });
});
