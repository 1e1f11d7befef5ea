import { useMemo, useState, type FormEvent } from 'react';
import { ApiRequestError, errorMessage } from '../api/client.ts';
import { notify } from '../stores/toasts.ts';
import { focusElement, withoutErrorsAt } from './server-errors.ts';

interface SettingsFormOptions<S, D> {
  /** The settings as the core has them. */
  settings: S;
  draftOf: (settings: S) => D;
  /** What is wrong before saving, by the API's `param`. */
  check: (draft: D, settings: S) => Record<string, string>;
  /** The form's params in the order it shows them: the first one wrong is shown. */
  order: readonly string[];
  /** The form's param an answer's `param` names, when the form has it. */
  paramOf: (param: string | undefined) => string | null;
  /** The DOM id of a param's input. */
  fieldId: (param: string) => string;
  /** Opens whatever hides a param's field, before it is focused. */
  reveal?: (param: string) => void;
  /** Sends the draft; answers with the settings as the core now has them. */
  send: (draft: D, settings: S) => Promise<S>;
  onSaved: (settings: S) => void;
  /** The toast once saved. */
  savedMessage: string;
}

/**
 * A settings form's draft and its saving: checked before it is sent, the first problem (or the
 * field the core names) shown and focused, other failures in `formError`.
 */
export function useSettingsForm<S, D>({
  settings,
  draftOf,
  check,
  order,
  paramOf,
  fieldId,
  reveal,
  send,
  onSaved,
  savedMessage,
}: SettingsFormOptions<S, D>) {
  const initial = useMemo(() => draftOf(settings), [draftOf, settings]);
  const [draft, setDraft] = useState<D>(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const dirty = JSON.stringify(draft) !== JSON.stringify(initial);

  const change = (patch: Partial<D>, params: string[]) => {
    setDraft((d) => ({ ...d, ...patch }));
    setErrors((current) => params.reduce(withoutErrorsAt, current));
    setFormError(null);
  };

  /** Brings a field into view, opening what hides it first. */
  const showParam = (param: string) => {
    reveal?.(param);
    window.requestAnimationFrame(() => focusElement(document.getElementById(fieldId(param))));
  };

  /** Saves the form; true once the core has the settings as shown. */
  const save = async (): Promise<boolean> => {
    const found = check(draft, settings);
    setErrors(found);
    const first = order.find((p) => found[p]);
    if (first) {
      showParam(first);
      return false;
    }
    setBusy(true);
    setFormError(null);
    try {
      const saved = await send(draft, settings);
      onSaved(saved);
      setDraft(draftOf(saved));
      notify('success', savedMessage);
      return true;
    } catch (e) {
      const param = e instanceof ApiRequestError ? paramOf(e.param) : null;
      if (param) {
        setErrors({ [param]: errorMessage(e) });
        showParam(param);
      } else {
        setFormError(errorMessage(e));
      }
      return false;
    } finally {
      setBusy(false);
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!busy) void save();
  };

  return { draft, errors, formError, busy, dirty, change, save, submit };
}
