/**
 * What a campaign's page (of any kind) is made of: the stores opened for it, the page shown
 * until it is read, its controls and their dialogs, its chart's card, and its audience in words.
 */
import { Suspense, useEffect, type ReactNode } from 'react';
import type { StoreApi, UseBoundStore } from 'zustand';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import type {
  CampaignDetailState,
  CampaignRecord,
  RecipientsState,
} from '../../stores/campaign-stores.ts';
import type { CampaignTarget } from '../../stores/campaigns-api.ts';
import type { LoadStatus } from '../../stores/scope.ts';
import { describeFilter } from './campaign-format.ts';
import { sendingAgainNotice, sendingNotice } from './sending-notice.ts';
import { useGroups } from './use-groups.ts';
import { useRightGate } from '../../components/needs-right.tsx';

/**
 * The campaign a page shows, from its kind's stores: opens it and its recipients (again after a
 * mode or workspace switch reset the stores), closes both when the page goes, and reads the
 * recipients once `hasStarted` says the campaign has started (sending fixed them).
 */
export function useCampaignPage<
  C extends CampaignRecord,
  P,
  T,
  R extends { id: string },
  F extends string,
>(
  campaignId: string,
  useDetail: UseBoundStore<StoreApi<CampaignDetailState<C, P, T>>>,
  useRecipients: UseBoundStore<StoreApi<RecipientsState<R, F>>>,
  hasStarted: (campaign: C) => boolean,
) {
  const campaign = useDetail((s) => s.campaign);
  const status = useDetail((s) => s.status);
  const error = useDetail((s) => s.error);
  const notFound = useDetail((s) => s.notFound);
  const timeline = useDetail((s) => s.timeline);
  const reload = useDetail((s) => s.reload);
  const pause = useDetail((s) => s.pause);
  const resume = useDetail((s) => s.resume);
  const reschedule = useDetail((s) => s.reschedule);
  const cancel = useDetail((s) => s.cancel);
  const open = useDetail((s) => s.open);
  const close = useDetail((s) => s.close);
  const openId = useDetail((s) => s.campaignId);
  const showRecipients = useRecipients((s) => s.show);
  const recipientsFor = useRecipients((s) => s.campaignId);
  const recipientsStatus = useRecipients((s) => s.status);
  const loadRecipients = useRecipients((s) => s.load);
  const resetRecipients = useRecipients((s) => s.reset);

  useEffect(() => {
    if (openId !== campaignId) open(campaignId);
  }, [campaignId, openId, open]);
  useEffect(() => {
    if (recipientsFor !== campaignId) showRecipients(campaignId);
  }, [campaignId, recipientsFor, showRecipients]);
  // Leaving the page lets go of both: nothing is read for a campaign no longer shown.
  useEffect(
    () => () => {
      close();
      resetRecipients();
    },
    [close, resetRecipients],
  );

  const started = campaign !== null && hasStarted(campaign);
  useEffect(() => {
    if (started && recipientsStatus === 'idle') void loadRecipients();
  }, [started, recipientsStatus, loadRecipients]);

  // Starting a scheduled campaign now is the same launch call as a paused one's resume.
  const controls: Record<Control, () => Promise<void>> = { pause, resume, start: resume, cancel };
  /** How the read went: what the page shows until the campaign is read, or above it after. */
  const load = { status, error, notFound, reload };
  return { campaign, started, timeline, controls, reschedule, load };
}

interface CampaignPlaceholderProps {
  testId: string;
  back: ReactNode;
  title: string;
  status: LoadStatus;
  error: string | null;
  notFound: boolean;
  reload: () => Promise<void>;
  notFoundTestId: string;
  /** Says there is no such campaign here, and why that may be. */
  notFoundText: ReactNode;
}

/** A campaign's page until the campaign is read: loading, not found, or failed. */
export function CampaignPlaceholder({
  testId,
  back,
  title,
  status,
  error,
  notFound,
  reload,
  notFoundTestId,
  notFoundText,
}: CampaignPlaceholderProps) {
  return (
    <div className="screen" data-testid={testId} aria-busy={status !== 'error'}>
      <PageHeader
        eyebrow={back}
        title={title}
        description={
          notFound
            ? 'Not found.'
            : status === 'error'
              ? 'The campaign could not be opened.'
              : 'Loading…'
        }
      />
      {notFound ? (
        <div className="banner banner-info" role="status" data-testid={notFoundTestId}>
          <span className="banner-text">{notFoundText}</span>
        </div>
      ) : status === 'error' && error ? (
        <ErrorBanner message={error} onRetry={() => void reload()} />
      ) : null}
    </div>
  );
}

/** A control of a campaign that asks first. */
export type Control = 'pause' | 'resume' | 'start' | 'cancel';

interface CampaignControlsProps {
  /** Starts the buttons' test ids: `<prefix>-edit`, `<prefix>-pause`, … */
  testIdPrefix: string;
  /** The editor's address, while the campaign can be edited. */
  editHref: string | null;
  editLabel: string;
  /** The controls its state allows (shared/campaign-states.ts `pageControls`). */
  allowed: Record<Control, boolean>;
  onControl: (control: Control) => void;
  /**
   * Besides "Resume now", a paused campaign its kind lets be launched for a later time: opens
   * that dialog (absent: not offered).
   */
  onReschedule?: (() => void) | null;
}

/** The header's buttons after Edit, in order: the control, its label and its style. */
const BUTTONS: readonly (readonly [Control | 'reschedule', string, string])[] = [
  ['start', 'Start now', ''],
  ['pause', 'Pause', ''],
  ['resume', 'Resume now', ' button-primary'],
  ['reschedule', 'Reschedule…', ''],
  ['cancel', 'Cancel campaign', ' button-danger-ghost'],
];

/** The buttons in a campaign's header: edit, start now, pause, resume now, reschedule, cancel. */
export function CampaignControls({
  testIdPrefix,
  editHref,
  editLabel,
  allowed,
  onControl,
  onReschedule,
}: CampaignControlsProps) {
  const { gate } = useRightGate('campaigns.write');
  return (
    <>
      {editHref && gate.disabled ? (
        <button
          type="button"
          className="button button-primary"
          {...gate}
          data-testid={`${testIdPrefix}-edit`}
        >
          {editLabel}
        </button>
      ) : editHref ? (
        <a href={editHref} className="button button-primary" data-testid={`${testIdPrefix}-edit`}>
          {editLabel}
        </a>
      ) : null}
      {BUTTONS.map(([control, label, style]) =>
        control === 'reschedule' ? (
          onReschedule ? (
            <button
              key={control}
              type="button"
              className="button"
              {...gate}
              onClick={onReschedule}
              data-testid={`${testIdPrefix}-reschedule`}
            >
              {label}
            </button>
          ) : null
        ) : allowed[control] ? (
          <button
            key={control}
            type="button"
            className={`button${style}`}
            {...gate}
            onClick={() => onControl(control)}
            data-testid={`${testIdPrefix}-${control}`}
          >
            {label}
          </button>
        ) : null,
      )}
    </>
  );
}

const DIALOGS: Record<
  Control,
  {
    title: (name: string) => string;
    done: (name: string) => string;
    confirmLabel: string;
    busyLabel: string;
  }
> = {
  pause: {
    title: (name) => `Pause “${name}”?`,
    done: (name) => `Paused “${name}”.`,
    confirmLabel: 'Pause',
    busyLabel: 'Pausing…',
  },
  resume: {
    title: (name) => `Resume “${name}” now?`,
    done: sendingAgainNotice,
    confirmLabel: 'Resume now',
    busyLabel: 'Resuming…',
  },
  start: {
    title: (name) => `Start “${name}” now?`,
    done: sendingNotice,
    confirmLabel: 'Start now',
    busyLabel: 'Starting…',
  },
  cancel: {
    title: (name) => `Cancel “${name}”?`,
    done: (name) => `Cancelled “${name}”.`,
    confirmLabel: 'Cancel campaign',
    busyLabel: 'Cancelling…',
  },
};

interface ControlDialogProps {
  control: Control;
  name: string;
  /** Starts the dialog's test ids: `<prefix>-pause-dialog`, `<prefix>-pause-confirm`, … */
  testIdPrefix: string;
  onConfirm: () => Promise<unknown>;
  onClose: () => void;
  /** What the control does to this campaign, in a sentence or two. */
  children: ReactNode;
}

/** Asks before pausing, resuming, starting or cancelling a campaign. */
export function ControlDialog({
  control,
  name,
  testIdPrefix,
  onConfirm,
  onClose,
  children,
}: ControlDialogProps) {
  const dialog = DIALOGS[control];
  return (
    <ConfirmDialog
      key={control}
      title={dialog.title(name)}
      onClose={onClose}
      onConfirm={onConfirm}
      doneMessage={dialog.done(name)}
      confirmLabel={dialog.confirmLabel}
      busyLabel={dialog.busyLabel}
      testId={`${testIdPrefix}-${control}-dialog`}
      confirmTestId={`${testIdPrefix}-${control}-confirm`}
    >
      {children}
    </ConfirmDialog>
  );
}

/** The card of a campaign's chart, which loads with the chart library. */
export function ChartCard({
  titleId,
  title,
  children,
}: {
  titleId: string;
  title: string;
  children: ReactNode;
}) {
  return (
    <section className="card campaign-chart" aria-labelledby={titleId}>
      <h2 id={titleId} className="card-title">
        {title}
      </h2>
      <Suspense fallback={<p className="send-rate-loading">Loading the chart…</p>}>
        {children}
      </Suspense>
    </section>
  );
}

/** Who a campaign goes to, in words: its group by name, or its filter. */
export function AudienceSummary({ target }: { target: CampaignTarget }) {
  const groups = useGroups();
  if (target.groupId) {
    const group = groups.groups.find((g) => g.id === target.groupId);
    return <>the group {group ? <strong>{group.name}</strong> : 'chosen'}</>;
  }
  return <>contacts with {describeFilter(target.filter)}</>;
}
