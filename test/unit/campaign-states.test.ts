import { describe, expect, it } from 'vitest';
import {
  allows,
  CAMPAIGN_ACTIONS,
  CAMPAIGN_MACHINES,
  CAMPAIGN_STATUSES,
  canMove,
  EMAIL_CAMPAIGN_STATUSES,
  isFinal,
  launchable,
  pageControls,
  reschedulable,
  type CampaignAction,
} from '../../shared/campaign-states.ts';

/**
 * What the APIs answered before the state machine was shared (campaigns/service.ts'
 * ALLOWED_FROM, email/service.ts' own checks), written out by hand: every action × state of both
 * kinds. `launch` here is the API's launch call, which is a launch, a resume or a reschedule.
 */
const MESSAGING: Record<string, Record<CampaignAction, boolean>> = {
  //        edit   launch resume resched pause  cancel
  draft: row(1, 1, 0, 0, 0, 1),
  scheduled: row(0, 0, 0, 0, 1, 1),
  sending: row(0, 0, 0, 0, 1, 1),
  paused: row(0, 0, 1, 1, 0, 1),
  completed: row(0, 0, 0, 0, 0, 0),
  cancelled: row(0, 0, 0, 0, 0, 0),
  failed: row(0, 0, 0, 0, 0, 0),
};
const EMAIL: Record<string, Record<CampaignAction, boolean>> = {
  draft: row(1, 1, 0, 0, 0, 1),
  // A scheduled email campaign is still edited, and launched again it starts now (or later).
  scheduled: row(1, 1, 0, 0, 0, 1),
  // Email pauses only while sending.
  sending: row(0, 0, 0, 0, 1, 1),
  paused: row(0, 0, 1, 1, 0, 1),
  completed: row(0, 0, 0, 0, 0, 0),
  cancelled: row(0, 0, 0, 0, 0, 0),
};

function row(...v: number[]): Record<CampaignAction, boolean> {
  return Object.fromEntries(CAMPAIGN_ACTIONS.map((a, i) => [a, v[i] === 1])) as Record<
    CampaignAction,
    boolean
  >;
}

describe('the campaign state machine', () => {
  it('has the states each kind has: email has no failed', () => {
    expect(CAMPAIGN_MACHINES.messaging.states).toEqual(CAMPAIGN_STATUSES);
    expect(CAMPAIGN_MACHINES.email.states).toEqual(EMAIL_CAMPAIGN_STATUSES);
    expect(Object.keys(MESSAGING)).toEqual([...CAMPAIGN_STATUSES]);
    expect(Object.keys(EMAIL)).toEqual([...EMAIL_CAMPAIGN_STATUSES]);
    expect(EMAIL_CAMPAIGN_STATUSES).not.toContain('failed');
  });

  for (const status of CAMPAIGN_STATUSES) {
    for (const action of CAMPAIGN_ACTIONS) {
      it(`messaging: ${action} from ${status} is ${MESSAGING[status]![action] ? 'allowed' : 'refused'}`, () => {
        expect(allows('messaging', action, status)).toBe(MESSAGING[status]![action]);
      });
    }
  }
  for (const status of EMAIL_CAMPAIGN_STATUSES) {
    for (const action of CAMPAIGN_ACTIONS) {
      it(`email: ${action} from ${status} is ${EMAIL[status]![action] ? 'allowed' : 'refused'}`, () => {
        expect(allows('email', action, status)).toBe(EMAIL[status]![action]);
      });
    }
  }

  it("the API's launch call: messaging from draft and paused, email from draft, scheduled and paused", () => {
    expect(CAMPAIGN_STATUSES.filter((s) => launchable('messaging', s))).toEqual([
      'draft',
      'paused',
    ]);
    expect(EMAIL_CAMPAIGN_STATUSES.filter((s) => launchable('email', s))).toEqual([
      'draft',
      'scheduled',
      'paused',
    ]);
  });

  it('a paused messaging campaign is rescheduled only before it sent; an email one also after', () => {
    expect(reschedulable('messaging', 'paused', false)).toBe(true);
    expect(reschedulable('messaging', 'paused', true)).toBe(false);
    expect(reschedulable('email', 'paused', false)).toBe(true);
    expect(reschedulable('email', 'paused', true)).toBe(true);
    expect(reschedulable('email', 'sending', true)).toBe(false);
  });

  it('final states: messaging completed, cancelled, failed; email completed, cancelled', () => {
    expect(CAMPAIGN_STATUSES.filter((s) => isFinal('messaging', s))).toEqual([
      'completed',
      'cancelled',
      'failed',
    ]);
    expect(EMAIL_CAMPAIGN_STATUSES.filter((s) => isFinal('email', s))).toEqual([
      'completed',
      'cancelled',
    ]);
    // Nothing leaves a final state.
    for (const kind of ['messaging', 'email'] as const) {
      const m = CAMPAIGN_MACHINES[kind];
      for (const action of CAMPAIGN_ACTIONS) {
        for (const s of m.final as readonly string[]) {
          expect((m.actions[action].from as readonly string[]).includes(s)).toBe(false);
        }
      }
    }
  });

  it('has every move the cores make, and none they do not', () => {
    // The runner's own moves.
    expect(canMove('messaging', 'scheduled', 'sending')).toBe(true);
    expect(canMove('messaging', 'sending', 'failed')).toBe(true);
    expect(canMove('messaging', 'scheduled', 'failed')).toBe(true);
    expect(canMove('messaging', 'sending', 'completed')).toBe(true);
    expect(canMove('email', 'scheduled', 'completed')).toBe(true);
    expect(canMove('email', 'sending', 'paused')).toBe(true);
    // A person's: a scheduled messaging campaign pauses, an email one does not.
    expect(canMove('messaging', 'scheduled', 'paused')).toBe(true);
    expect(canMove('email', 'scheduled', 'paused')).toBe(false);
    expect(canMove('email', 'scheduled', 'scheduled')).toBe(true);
    expect(canMove('email', 'paused', 'scheduled')).toBe(true);
    expect(canMove('messaging', 'draft', 'completed')).toBe(false);
    expect(canMove('messaging', 'completed', 'sending')).toBe(false);
    expect(canMove('email', 'cancelled', 'draft')).toBe(false);
  });
});

describe('what a campaign page offers', () => {
  const offered = (c: ReturnType<typeof pageControls>) =>
    Object.entries(c)
      .filter(([, on]) => on)
      .map(([k]) => k);

  it('messaging: a scheduled campaign pauses or cancels; a paused one resumes, reschedules before it sent', () => {
    expect(offered(pageControls('messaging', { status: 'draft', launchedAt: null }))).toEqual([
      'edit',
      'cancel',
    ]);
    expect(offered(pageControls('messaging', { status: 'scheduled', launchedAt: null }))).toEqual([
      'pause',
      'cancel',
    ]);
    expect(offered(pageControls('messaging', { status: 'sending', launchedAt: 'x' }))).toEqual([
      'pause',
      'cancel',
    ]);
    expect(offered(pageControls('messaging', { status: 'paused', launchedAt: null }))).toEqual([
      'resume',
      'reschedule',
      'cancel',
    ]);
    expect(offered(pageControls('messaging', { status: 'paused', launchedAt: 'x' }))).toEqual([
      'resume',
      'cancel',
    ]);
    for (const status of ['completed', 'cancelled', 'failed'] as const) {
      expect(offered(pageControls('messaging', { status, launchedAt: 'x' }))).toEqual([]);
    }
  });

  it('email: a scheduled campaign can be started now (as the API allows); a paused one rescheduled', () => {
    expect(offered(pageControls('email', { status: 'draft', launchedAt: null }))).toEqual([
      'edit',
      'cancel',
    ]);
    expect(offered(pageControls('email', { status: 'scheduled', launchedAt: null }))).toEqual([
      'edit',
      'start',
      'cancel',
    ]);
    expect(offered(pageControls('email', { status: 'sending', launchedAt: 'x' }))).toEqual([
      'pause',
      'cancel',
    ]);
    expect(offered(pageControls('email', { status: 'paused', launchedAt: 'x' }))).toEqual([
      'resume',
      'reschedule',
      'cancel',
    ]);
    for (const status of ['completed', 'cancelled'] as const) {
      expect(offered(pageControls('email', { status, launchedAt: 'x' }))).toEqual([]);
    }
  });
});
