/**
 * The campaign wizard's model: the form's draft, the checks made before a request (the core
 * has the last word and names the field it refuses in `param`), the bodies sent, and the way from
 * an answer's `param` back to a field.
 */
import { labelsProblem, splitLabels } from '../../../../shared/labels.ts';
import { parsePlaceholders, PLACEHOLDER_HELP } from '../../../../shared/placeholders.ts';
import type {
  Campaign,
  CampaignTarget,
  CreateCampaignBody,
  UpdateCampaignBody,
} from '../../stores/campaigns-api.ts';
import { fromLocalInput, toLocalInput } from '../../components/format.ts';

/**
 * Who the campaign reaches: one group, contacts with any of some labels, or a filter made
 * through the API (phones, attributes) that the wizard keeps as it is unless replaced.
 */
export type AudienceKind = 'group' | 'labels' | 'kept';

/** Who a campaign reaches, as the audience field edits it. */
export interface AudienceDraft {
  audience: AudienceKind;
  groupId: string;
  /** The labels as typed: "vip, wholesale". */
  labels: string;
  /** The target the campaign had when it was opened (kept for `audience: 'kept'`). */
  keptTarget: CampaignTarget | null;
}

/** When a campaign starts, as the schedule field edits it. */
export interface ScheduleDraft {
  when: 'now' | 'later';
  /** A `datetime-local` value, in the user's time zone. */
  scheduledAt: string;
}

export interface CampaignDraft extends AudienceDraft, ScheduleDraft {
  name: string;
  templateName: string;
  /** Values for {{1}}…{{n}}, as typed ({{contact.*}} unrendered). */
  variables: Record<string, string>;
}

/** The fields an error can be shown under. */
export type Field = 'name' | 'templateName' | 'variables' | 'target' | 'scheduledFor' | string;
export type FieldErrors = Partial<Record<Field, string>>;

export const NAME_MAX = 200;
export const VARIABLE_MAX = 1024;

export const emptyAudience = (): AudienceDraft => ({
  audience: 'group',
  groupId: '',
  labels: '',
  keptTarget: null,
});

export const emptySchedule = (): ScheduleDraft => ({ when: 'now', scheduledAt: '' });

export const emptyDraft = (): CampaignDraft => ({
  name: '',
  templateName: '',
  variables: {},
  ...emptyAudience(),
  ...emptySchedule(),
});

/** A saved target as the audience field shows it: a group, labels, or kept as it is. */
export function audienceDraftOf(target: CampaignTarget): AudienceDraft {
  const filter = target.filter;
  const labelsOnly =
    filter !== undefined &&
    filter.labels !== undefined &&
    filter.phones === undefined &&
    filter.attributes === undefined;
  return {
    audience: target.groupId ? 'group' : labelsOnly ? 'labels' : 'kept',
    groupId: target.groupId ?? '',
    labels: labelsOnly ? (filter.labels ?? []).join(', ') : '',
    keptTarget: target,
  };
}

/** A saved start time as the schedule field shows it. */
export const scheduleDraftOf = (scheduledFor: string | null): ScheduleDraft => ({
  when: scheduledFor ? 'later' : 'now',
  scheduledAt: toLocalInput(scheduledFor),
});

export const draftFromCampaign = (campaign: Campaign): CampaignDraft => ({
  name: campaign.name,
  templateName: campaign.templateName,
  variables: { ...campaign.variables },
  ...audienceDraftOf(campaign.target),
  ...scheduleDraftOf(campaign.scheduledFor),
});

/** The target the draft describes, or null while it describes none yet. */
export function targetOf(draft: AudienceDraft): CampaignTarget | null {
  if (draft.audience === 'group') return draft.groupId ? { groupId: draft.groupId } : null;
  if (draft.audience === 'kept') return draft.keptTarget;
  const labels = splitLabels(draft.labels);
  if (labels.length === 0 || labelsProblem(labels)) return null;
  return { filter: { labels } };
}

/** What is wrong with the audience chosen, before anything is sent. */
export function audienceProblem(draft: AudienceDraft): string | undefined {
  if (draft.audience === 'group' && !draft.groupId) return 'Choose a group.';
  if (draft.audience !== 'labels') return undefined;
  const labels = splitLabels(draft.labels);
  const problem = labelsProblem(labels);
  if (labels.length === 0) return 'Type at least one label.';
  if (problem) return `${problem[0]!.toUpperCase()}${problem.slice(1)}.`;
  return undefined;
}

/** The variable numbers of a template with `count` variables: "1", "2", … */
export const variableNumbers = (count: number): string[] =>
  Array.from({ length: count }, (_, i) => String(i + 1));

/**
 * The values sent: one for each of the template's variables and no other (the core wants
 * exactly its count), empty ones included while the draft is unfinished.
 */
export function variablesOf(draft: CampaignDraft, count: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of variableNumbers(count)) out[n] = draft.variables[n] ?? '';
  return out;
}

interface CheckContext {
  /** Launching asks for everything a send needs; saving a draft only for what the API needs. */
  launching: boolean;
  /** The chosen template's variable count, or null when no approved template is chosen. */
  variableCount: number | null;
  /** The time a schedule must be after (now, unless a test says otherwise). */
  now?: number;
}

/** What is wrong, by field, before anything is sent. */
export function checkDraft(draft: CampaignDraft, ctx: CheckContext): FieldErrors {
  const errors: FieldErrors = {};
  if (!draft.name.trim()) errors.name = 'Name the campaign (only you see the name).';
  else if (draft.name.length > NAME_MAX) errors.name = `At most ${NAME_MAX} characters.`;

  if (!draft.templateName) errors.templateName = 'Choose the template to send.';
  else if (ctx.launching && ctx.variableCount === null) {
    errors.templateName = `“${draft.templateName}” is not an approved template now: choose another.`;
  }

  for (const n of variableNumbers(ctx.variableCount ?? 0)) {
    const value = draft.variables[n] ?? '';
    const { unknown } = parsePlaceholders(value);
    if (unknown.length > 0) {
      errors[`variables.${n}`] = `Unknown placeholder ${unknown[0]}: use ${PLACEHOLDER_HELP}.`;
    } else if (value.length > VARIABLE_MAX) {
      errors[`variables.${n}`] = `At most ${VARIABLE_MAX} characters.`;
    } else if (ctx.launching && !value.trim()) {
      errors[`variables.${n}`] = `Fill in {{${n}}}: text, a contact field, or both.`;
    }
  }

  const audience = audienceProblem(draft);
  if (audience) errors.target = audience;

  if (draft.when === 'later') {
    const at = fromLocalInput(draft.scheduledAt);
    if (!at) errors.scheduledFor = 'Choose the date and time to start.';
    else if (ctx.launching && Date.parse(at) <= (ctx.now ?? Date.now())) {
      errors.scheduledFor = 'That time has passed: choose a later one, or send now.';
    }
  }
  return errors;
}

/** The order fields appear in, to focus the first one with an error. */
const ORDER = ['name', 'templateName', 'variables', 'target', 'scheduledFor'];
export const firstField = (errors: FieldErrors): string | null =>
  Object.keys(errors).sort((a, b) => {
    const rank = (k: string) =>
      ORDER.indexOf(k.split('.')[0]!) * 1000 + Number(k.split('.')[1] ?? 0);
    return rank(a) - rank(b);
  })[0] ?? null;

/** The field an answer's `param` names (`target.filter.labels` is the audience), or null. */
export function fieldForParam(param: string | undefined): Field | null {
  if (!param) return null;
  const [head, second] = param.split('.');
  if (head === 'name' || head === 'templateName' || head === 'scheduledFor') return head;
  if (head === 'target') return 'target';
  if (head === 'variables')
    return second && /^\d+$/.test(second) ? `variables.${second}` : 'variables';
  return null;
}

/**
 * The field a key of a draft is edited in, whose error a change clears: the audience's keys are
 * its `audience` field, the schedule's `scheduledFor`, any other its own.
 */
export function fieldOfKey(key: string, audience: string): string {
  if (key === 'groupId' || key === 'labels' || key === 'audience') return audience;
  if (key === 'scheduledAt' || key === 'when') return 'scheduledFor';
  return key;
}

/** The DOM id of a field's input. */
export const fieldId = (field: Field): string => `campaign-${field.replace(/\./g, '-')}`;

export function createBody(draft: CampaignDraft, variableCount: number): CreateCampaignBody {
  const target = targetOf(draft);
  if (!target) throw new Error('the draft has no audience');
  return {
    name: draft.name.trim(),
    templateName: draft.templateName,
    variables: variablesOf(draft, variableCount),
    target,
    scheduledFor: draft.when === 'later' ? fromLocalInput(draft.scheduledAt) : null,
  };
}

export const updateBody = (
  id: string,
  draft: CampaignDraft,
  variableCount: number,
): UpdateCampaignBody => ({ id, ...createBody(draft, variableCount) });
