/**
 * The canvas's edits to a flow: a step added on a path, a step removed with the paths through it
 * re-linked, a step renamed with the paths to it. A step's `next` defaults to the following step
 * and only the last step ends by default, so an edit first resolves every path to its target,
 * changes targets, then writes the links back (materialise): a `next` that names the following
 * step is left out, and a path that must end where no default can say so goes to an `end` step.
 */
import { STEP_EDITORS } from '../steps/index.ts';
import { newStep, pathsOf } from '../workflow-definition.ts';
import type { PathField, StepDraft, StepType } from '../workflow-draft.ts';

/** Where a path starts: the trigger (into the first step), or a step's path field (by step key). */
export type PathRef = { step: null } | { step: string; field: PathField };

/** A path's target: a step id, null (the run ends), '' (a condition's, not chosen yet). */
type Target = string | null;

interface Resolved {
  step: StepDraft;
  links: Map<PathField, Target>;
}

const hasNext = (type: StepType): boolean => STEP_EDITORS[type]?.next !== false;

function resolve(steps: readonly StepDraft[]): Resolved[] {
  return steps.map((step, i) => ({
    step,
    links: new Map(pathsOf(steps, i).map((p) => [p.field, p.target])),
  }));
}

/** Writes one link into a step (a copy), `conditions.2.goto` included. */
function withLink(step: StepDraft, field: PathField, target: string | undefined): StepDraft {
  const condition = /^conditions\.(\d+)\.goto$/.exec(field);
  if (condition) {
    const k = Number(condition[1]);
    return {
      ...step,
      conditions: (step.conditions ?? []).map((c, i) =>
        i === k ? { ...c, goto: target ?? '' } : c,
      ),
    };
  }
  const out: StepDraft = { ...step };
  if (target === undefined) delete out[field as 'next'];
  else out[field as 'next'] = target;
  return out;
}

/** The steps with every resolved link written back in the fewest words (see the module's note). */
function materialise(entries: Resolved[]): StepDraft[] {
  let ordered = entries.map((e) => e.step);
  const isEnd = (step: StepDraft | undefined) => step?.type === 'end';
  // Which null targets no default can express: a `next` that is not last nor before an end step, a goto, an onError.
  const needsEndStep = entries.some(({ links }, i) =>
    [...links].some(([field, target]) => {
      if (target !== null) return false;
      if (field === 'next') return i < entries.length - 1 && !isEnd(ordered[i + 1]);
      return field === 'onError' || field.startsWith('conditions.');
    }),
  );
  let endId = ordered.find(isEnd)?.id;
  if (needsEndStep && endId === undefined) {
    const end = newStep(ordered, 'end');
    endId = end.id;
    ordered = [...ordered, end];
    entries = [...entries, { step: end, links: new Map() }];
  }
  return entries.map(({ step, links }, i) => {
    let out = step;
    const following = ordered[i + 1];
    for (const [field, target] of links) {
      if (field === 'next') {
        const implicit =
          target === null ? following === undefined || isEnd(following) : target === following?.id;
        out = withLink(out, 'next', implicit ? undefined : (target ?? endId));
      } else if (field === 'onTimeout' || field === 'else') {
        out = withLink(out, field, target || undefined);
      } else {
        out = withLink(out, field, target === null ? endId : target);
      }
    }
    return out;
  });
}

/** A new step of `type` on the path `at`: the path now leads to it, and it leads where the path did. */
export function insertStep(
  steps: readonly StepDraft[],
  at: PathRef,
  type: StepType,
): { steps: StepDraft[]; key: string } {
  const entries = resolve(steps);
  const added = newStep(steps, type);
  let index: number;
  let target: Target;
  if (at.step === null) {
    index = 0;
    target = entries[0]?.step.id ?? null;
  } else {
    const source = entries.findIndex((e) => e.step.key === at.step);
    if (source < 0) return { steps: [...steps], key: added.key };
    index = source + 1;
    target = entries[source]!.links.get(at.field) ?? null;
    entries[source]!.links.set(at.field, added.id);
  }
  // What the path led to comes after the new step: its "then", or a branch's "otherwise".
  const own = resolve([added])[0]!.links;
  const onward = target === '' ? null : target;
  if (hasNext(type)) own.set('next', onward);
  else if (own.has('else')) own.set('else', onward);
  entries.splice(index, 0, { step: added, links: own });
  return { steps: materialise(entries), key: added.key };
}

/** The path a removed step hands its incoming paths to: its "then", else its "otherwise", else its first condition's. */
function successorOf(entry: Resolved): Target {
  const { links, step } = entry;
  const first = [...links].find(([f]) => f.startsWith('conditions.'))?.[1];
  const successor = links.get('next') ?? links.get('else') ?? (first || null);
  return successor === step.id ? null : successor;
}

/** Removes a step; what led to it leads where it led (the first step's successor becomes the first). */
export function removeStep(steps: readonly StepDraft[], key: string): StepDraft[] {
  const entries = resolve(steps);
  const index = entries.findIndex((e) => e.step.key === key);
  if (index < 0) return [...steps];
  const removed = entries[index]!;
  const successor = successorOf(removed);
  entries.splice(index, 1);
  for (const { links } of entries) {
    for (const [field, target] of links) {
      if (target === removed.step.id) links.set(field, successor);
    }
  }
  if (index === 0 && successor) {
    const at = entries.findIndex((e) => e.step.id === successor);
    if (at > 0) entries.unshift(...entries.splice(at, 1));
  }
  return materialise(entries);
}

/** Gives a step a new id; the paths that named it follow. */
export function renameStep(steps: readonly StepDraft[], key: string, id: string): StepDraft[] {
  const old = steps.find((s) => s.key === key)?.id;
  return steps.map((step, i) => {
    let out = step.key === key ? { ...step, id } : step;
    if (old === undefined || old === '') return out;
    for (const path of pathsOf(steps, i)) {
      const explicit = path.field === 'next' ? step.next : path.target;
      if (explicit === old) out = withLink(out, path.field, id);
    }
    return out;
  });
}
