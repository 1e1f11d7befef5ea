/**
 * What the canvas's nodes say: the trigger and each step in a line of plain words ("When a
 * customer writes “order” outside business hours", "Up to 1 minute"). Names the draft only
 * holds by id (a list, a member) come from `names`, when known.
 */
import { ROUND_ROBIN } from '../../../../../shared/workflow-steps/assign.ts';
import { plural } from '../../../components/format.ts';
import { durationText, type StepDraft, type TriggerDraft } from '../workflow-draft.ts';

export interface Names {
  list?: (id: string) => string | undefined;
  member?: (id: string) => string | undefined;
}

const quoted = (words: readonly string[]): string => {
  const q = words.map((w) => `“${w}”`);
  return q.length <= 1 ? (q[0] ?? '') : `${q.slice(0, -1).join(', ')} or ${q[q.length - 1]}`;
};

export function triggerTitle(t: TriggerDraft): string {
  switch (t.type) {
    case 'message_received':
      return 'A customer writes';
    case 'event':
      return 'An event arrives';
    case 'manual':
      return 'Started by hand';
    case 'conversation_status':
      return t.to === 'resolved' ? 'A conversation is resolved' : 'A conversation is reopened';
    case 'list_reply':
      return 'A customer picks from a list';
  }
}

export function triggerSummary(t: TriggerDraft, names: Names = {}): string {
  switch (t.type) {
    case 'message_received': {
      const keywords = [...t.keywords, ...(t.keywordText.trim() ? [t.keywordText.trim()] : [])];
      const match = t.match === 'exact' ? 'exactly ' : t.match === 'whole_word' ? 'the word ' : '';
      return [
        keywords.length > 0 ? `Says ${match}${quoted(keywords)}` : 'Any message',
        t.outsideHours ? 'outside business hours' : null,
        t.firstMessageOnly ? 'first message only' : null,
      ]
        .filter(Boolean)
        .join(' · ');
    }
    case 'event':
      return t.event ? `POST /api/events “${t.event}”` : 'No event name yet';
    case 'manual':
      return 'A test run or POST /workflows/trigger';
    case 'conversation_status':
      return t.to === 'resolved' ? 'Status changes to resolved' : 'Status changes to open';
    case 'list_reply':
      return t.listId ? (names.list?.(t.listId) ?? 'A saved list') : 'No list chosen yet';
  }
}

/** A step's one-line gist, under its title. */
export function stepSummary(step: StepDraft, names: Names = {}): string {
  switch (step.type) {
    case 'send_template':
      return step.templateName || 'No template chosen';
    case 'send_text':
      return step.text?.trim() || 'No message yet';
    case 'send_list':
      return step.listId ? (names.list?.(step.listId) ?? 'A saved list') : 'No list chosen';
    case 'wait':
      return `For ${durationText(step.duration)}`;
    case 'wait_for_reply':
      return `Up to ${durationText(step.timeout)}`;
    case 'branch':
      return `${plural(step.conditions?.length ?? 0, 'condition')}, then otherwise`;
    case 'webhook':
      try {
        return `${step.method ?? 'POST'} ${new URL(step.url ?? '').host}`;
      } catch {
        return step.url || 'No address yet';
      }
    case 'update_conversation': {
      const labels = [
        ...(step.addLabels ?? []),
        ...(step.typed?.addLabels ? [step.typed.addLabels] : []),
      ];
      const parts = [
        labels.length > 0 ? `Label ${labels.join(', ')}` : null,
        step.removeLabels?.length ? `unlabel ${step.removeLabels.join(', ')}` : null,
        step.status ? `mark ${step.status}` : null,
        step.assignee === null ? 'unassign' : step.assignee ? 'assign' : null,
      ].filter(Boolean);
      return parts.length > 0 ? parts.join(' · ') : 'Nothing to change yet';
    }
    case 'assign':
      return !step.to
        ? 'Nobody chosen'
        : step.to === ROUND_ROBIN
          ? 'The next agent in turn'
          : (names.member?.(step.to) ?? 'A member');
    case 'end':
      return 'The run ends here';
  }
}
