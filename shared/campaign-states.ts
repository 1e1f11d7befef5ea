/**
 * One state machine for every kind of campaign (README "Campaigns" and "Email"): its states,
 * which action each state allows, where each action leads, and what the runner moves by itself.
 * The cores check actions against it (409 `invalid_state` otherwise) and the campaign pages offer
 * only what it allows. What differs between kinds is data in its row of CAMPAIGN_MACHINES: email
 * has no `failed`, edits scheduled campaigns, starts a scheduled one at once when launched, and
 * pauses only while sending. No zod, no Node, no DOM.
 */

export const CAMPAIGN_KINDS = ['messaging', 'email'] as const;
export type CampaignKind = (typeof CAMPAIGN_KINDS)[number];

/** Email campaigns' states, every one a messaging campaign has too. */
export const EMAIL_CAMPAIGN_STATUSES = [
  'draft',
  'scheduled',
  'sending',
  'paused',
  'completed',
  'cancelled',
] as const;
/** Messaging campaigns' states: email's and `failed`, when the template stops being sendable. */
export const CAMPAIGN_STATUSES = [...EMAIL_CAMPAIGN_STATUSES, 'failed'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export type EmailCampaignStatus = (typeof EMAIL_CAMPAIGN_STATUSES)[number];

export interface StatusOf {
  messaging: CampaignStatus;
  email: EmailCampaignStatus;
}

/**
 * What a person (or an API caller) does to a campaign. `launch` starts a draft (now or at
 * `scheduledFor`); `resume` launches a paused one again, now; `reschedule` gives a paused one a
 * new start time instead. The API's launch call is launch, resume or reschedule by the state.
 */
export const CAMPAIGN_ACTIONS = [
  'edit',
  'launch',
  'resume',
  'reschedule',
  'pause',
  'cancel',
] as const;
export type CampaignAction = (typeof CAMPAIGN_ACTIONS)[number];

interface Move<S extends string> {
  /** The states the action starts from: anything else answers 409 `invalid_state`. */
  from: readonly S[];
  /** The states it may lead to. */
  to: readonly S[];
}

export interface CampaignMachine<S extends string> {
  states: readonly S[];
  /** States nothing leaves. */
  final: readonly S[];
  actions: Record<CampaignAction, Move<S>>;
  /** What the runner moves by itself: a scheduled start, the end, a pause, a failure. */
  runner: readonly (readonly [S, S])[];
  /**
   * Whether a paused campaign that has sent already may be given a new start time (messaging:
   * no, a started campaign resumes where it stopped; email: yes, only its resume time changes).
   */
  rescheduleStarted: boolean;
}

const NOT_FINAL = ['draft', 'scheduled', 'sending', 'paused'] as const;

export const CAMPAIGN_MACHINES: { [K in CampaignKind]: CampaignMachine<StatusOf[K]> } = {
  messaging: {
    states: CAMPAIGN_STATUSES,
    final: ['completed', 'cancelled', 'failed'],
    actions: {
      // A scheduled messaging campaign has its recipients fixed: pause it to change course.
      edit: { from: ['draft'], to: ['draft'] },
      launch: { from: ['draft'], to: ['scheduled', 'sending'] },
      resume: { from: ['paused'], to: ['sending'] },
      reschedule: { from: ['paused'], to: ['scheduled'] },
      pause: { from: ['sending', 'scheduled'], to: ['paused'] },
      cancel: { from: NOT_FINAL, to: ['cancelled'] },
    },
    runner: [
      ['scheduled', 'sending'],
      ['sending', 'completed'],
      ['sending', 'paused'],
      ['sending', 'failed'],
      ['scheduled', 'failed'],
    ],
    rescheduleStarted: false,
  },
  email: {
    states: EMAIL_CAMPAIGN_STATUSES,
    final: ['completed', 'cancelled'],
    actions: {
      edit: { from: ['draft', 'scheduled'], to: ['draft', 'scheduled'] },
      // A scheduled email campaign launched again starts now, or at its new time.
      launch: { from: ['draft', 'scheduled'], to: ['scheduled', 'sending'] },
      resume: { from: ['paused'], to: ['sending'] },
      reschedule: { from: ['paused'], to: ['scheduled'] },
      pause: { from: ['sending'], to: ['paused'] },
      cancel: { from: NOT_FINAL, to: ['cancelled'] },
    },
    runner: [
      ['scheduled', 'sending'],
      // Nobody left to email when its time came.
      ['scheduled', 'completed'],
      ['sending', 'completed'],
      // The SMTP settings failed.
      ['sending', 'paused'],
    ],
    rescheduleStarted: true,
  },
};

/** Whether `action` is allowed in `status` for this kind. */
export function allows<K extends CampaignKind>(
  kind: K,
  action: CampaignAction,
  status: StatusOf[K],
): boolean {
  const from: readonly string[] = CAMPAIGN_MACHINES[kind].actions[action].from;
  return from.includes(status);
}

/** Whether the API's launch call is allowed: a launch, or a paused campaign's resume. */
export const launchable = <K extends CampaignKind>(kind: K, status: StatusOf[K]): boolean =>
  allows(kind, 'launch', status) || allows(kind, 'resume', status);

/** Whether a paused campaign may be given a new start time (`started`: it has sent already). */
export const reschedulable = <K extends CampaignKind>(
  kind: K,
  status: StatusOf[K],
  started: boolean,
): boolean =>
  allows(kind, 'reschedule', status) && (!started || CAMPAIGN_MACHINES[kind].rescheduleStarted);

/** Whether the machine has a move from `from` to `to`, by an action or by the runner. */
export function canMove<K extends CampaignKind>(
  kind: K,
  from: StatusOf[K],
  to: StatusOf[K],
): boolean {
  const m: CampaignMachine<string> = CAMPAIGN_MACHINES[kind];
  return (
    Object.values(m.actions).some((a) => a.from.includes(from) && a.to.includes(to)) ||
    m.runner.some(([a, b]) => a === from && b === to)
  );
}

export const isFinal = <K extends CampaignKind>(kind: K, status: StatusOf[K]): boolean =>
  (CAMPAIGN_MACHINES[kind].final as readonly string[]).includes(status);

/** The controls a campaign's page offers, by its kind, state and whether it has sent. */
export interface PageControls {
  edit: boolean;
  /** "Start now": a scheduled campaign launched at once (a draft launches from its editor). */
  start: boolean;
  resume: boolean;
  reschedule: boolean;
  pause: boolean;
  cancel: boolean;
}

export function pageControls<K extends CampaignKind>(
  kind: K,
  campaign: { status: StatusOf[K]; launchedAt: string | null },
): PageControls {
  const { status } = campaign;
  return {
    edit: allows(kind, 'edit', status),
    start: status !== 'draft' && allows(kind, 'launch', status),
    resume: allows(kind, 'resume', status),
    reschedule: reschedulable(kind, status, campaign.launchedAt !== null),
    pause: allows(kind, 'pause', status),
    cancel: allows(kind, 'cancel', status),
  };
}
