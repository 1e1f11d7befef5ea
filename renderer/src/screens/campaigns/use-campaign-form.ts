import { useState } from 'react';
import { ApiRequestError, errorMessage } from '../../api/client.ts';
import { formatDateTime } from '../../components/format.ts';
import { useRoute, type Route } from '../../stores/route.ts';
import { notify } from '../../stores/toasts.ts';
import { sendingNotice } from './sending-notice.ts';

/** What a campaign editor is busy with: saving, launching, or sending a test. */
export type Busy = 'save' | 'launch' | 'test' | null;

type Errors<F extends string> = Partial<Record<F, string>>;

interface CampaignFormOptions<D, F extends string> {
  initial: () => D;
  /** The screen whose page a launched campaign opens on. */
  route: Route;
  /** The field a key of the draft is edited in: a change clears that field's error. */
  fieldOfKey: (key: string) => F;
  /** What is wrong before a request, by field; launching asks for more than saving. */
  check: (draft: D, launching: boolean) => Errors<F>;
  /** The first of these fields on the form. */
  firstField: (errors: Errors<F>) => F | null;
  /** The field an answer's `param` names, or null. */
  fieldForParam: (param: string | undefined) => F | null;
  /** Brings a field with an error into view, and into focus. */
  show: (field: F) => void;
  /** An answer's message as it reads under its field. */
  fieldMessage?: (message: string) => string;
}

/** A campaign as a save or a launch answers it. */
interface Saved {
  id: string;
  name: string;
  status: string;
  scheduledFor: string | null;
}

/**
 * The state and steps a campaign editor (of any kind) goes through: the draft and its errors by
 * field, saving, and launching through a confirming dialog; an answer's error goes under the
 * field it names, or above the form (or in the dialog).
 */
export function useCampaignForm<D, F extends string>({
  initial,
  route,
  fieldOfKey,
  check,
  firstField,
  fieldForParam,
  show,
  fieldMessage = (message) => message,
}: CampaignFormOptions<D, F>) {
  const navigate = useRoute((s) => s.navigate);
  const [draft, setDraft] = useState<D>(initial);
  const [errors, setErrors] = useState<Errors<F>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState<Busy>(null);
  const [confirming, setConfirming] = useState(false);
  const [launchError, setLaunchError] = useState<string | null>(null);

  const change = (patch: Partial<D>) => {
    setDraft((d) => ({ ...d, ...patch }));
    setErrors((current) => {
      const next = { ...current };
      for (const key of Object.keys(patch)) delete next[fieldOfKey(key)];
      return next;
    });
    setFormError(null);
  };

  const validate = (launching: boolean): boolean => {
    const found = check(draft, launching);
    setErrors(found);
    const first = firstField(found);
    if (first) show(first);
    return first === null;
  };

  /** Puts an answer's error under its field, or above the form. */
  const showError = (e: unknown): void => {
    const field = e instanceof ApiRequestError ? fieldForParam(e.param) : null;
    if (field) {
      setErrors((current) => ({ ...current, [field]: fieldMessage(errorMessage(e)) }));
      show(field);
    } else {
      setFormError(errorMessage(e));
    }
  };

  /** Saves the campaign through `persist`, and says so in `done`'s words. */
  const save = async <C extends Saved>(persist: () => Promise<C>, done: (saved: C) => string) => {
    if (busy || !validate(false)) return;
    setBusy('save');
    setFormError(null);
    try {
      notify('success', done(await persist()));
    } catch (e) {
      showError(e);
    } finally {
      setBusy(null);
    }
  };

  /** Opens the dialog that confirms the launch, once the draft has all a launch needs. */
  const askLaunch = () => {
    if (busy || !validate(true)) return;
    setLaunchError(null);
    setConfirming(true);
  };

  /** Launches through `run` (confirmed), then opens the campaign's page. */
  const launch = async (run: () => Promise<Saved>) => {
    setBusy('launch');
    setLaunchError(null);
    try {
      const launched = await run();
      notify(
        'success',
        launched.status === 'scheduled'
          ? `“${launched.name}” is scheduled for ${formatDateTime(launched.scheduledFor)}.`
          : sendingNotice(launched.name),
      );
      setConfirming(false);
      navigate(route, launched.id);
    } catch (e) {
      setBusy(null);
      const field = e instanceof ApiRequestError ? fieldForParam(e.param) : null;
      if (field) {
        setConfirming(false);
        showError(e);
      } else {
        setLaunchError(errorMessage(e));
      }
    }
  };

  return {
    draft,
    setDraft,
    change,
    errors,
    setErrors,
    formError,
    setFormError,
    busy,
    setBusy,
    confirming,
    setConfirming,
    launchError,
    validate,
    showError,
    save,
    askLaunch,
    launch,
  };
}
