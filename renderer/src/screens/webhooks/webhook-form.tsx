import { useState, type FormEvent } from 'react';
import type { EventType } from '../../../../shared/schemas/events.ts';
import type { UpdateWebhookBody } from '../../../../shared/schemas/webhooks.ts';
import { ApiRequestError } from '../../api/client.ts';
import { FormDialog } from '../../components/form-dialog.tsx';
import { TextField } from '../../components/text-field.tsx';
import { useAction } from '../../components/use-action.ts';
import { notify } from '../../stores/toasts.ts';
import { useWebhooks, type CreatedWebhook, type Webhook } from '../../stores/webhooks.ts';
import { EventPicker } from './event-picker.tsx';
import { sentence } from './webhook-words.ts';

interface Draft {
  url: string;
  description: string;
  all: boolean;
  chosen: Set<string>;
}

type Field = 'url' | 'events';

const draftOf = (webhook: Webhook | undefined): Draft => ({
  url: webhook?.url ?? '',
  description: webhook?.description ?? '',
  all: webhook ? webhook.events === null : true,
  chosen: new Set(webhook?.events ?? []),
});

/** What the form says before asking the core (which checks the address itself). */
function problems(draft: Draft): Partial<Record<Field, string>> {
  const found: Partial<Record<Field, string>> = {};
  const url = draft.url.trim();
  if (!url) found.url = 'Enter the address Parley should send events to.';
  else if (!/^https?:\/\/\S+$/i.test(url)) {
    found.url = 'Enter a full web address that starts with https:// (or http://).';
  }
  if (!draft.all && draft.chosen.size === 0) {
    found.events = 'Choose at least one event, or send all events.';
  }
  return found;
}

/** The core's word on a field: `url`, or `events` (and `events.N`). */
function fieldOf(e: unknown): Field | null {
  if (!(e instanceof ApiRequestError) || !e.param) return null;
  if (e.param === 'url') return 'url';
  return e.param === 'events' || e.param.startsWith('events.') ? 'events' : null;
}

/**
 * Adds an endpoint (then its secret is shown, once) or changes one's address, description and
 * events; the secret never changes.
 */
export function WebhookFormDialog({
  webhook,
  onClose,
  onCreated,
}: {
  /** The endpoint to change; none adds one. */
  webhook?: Webhook;
  onClose: () => void;
  onCreated?: (created: CreatedWebhook) => void;
}) {
  const create = useWebhooks((s) => s.create);
  const update = useWebhooks((s) => s.update);
  const [draft, setDraft] = useState<Draft>(() => draftOf(webhook));
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [tried, setTried] = useState(false);
  const { busy, error, run } = useAction();

  const change = (patch: Partial<Draft>, field?: Field) => {
    const next = { ...draft, ...patch };
    setDraft(next);
    // Once the form was sent, its own problems follow the typing; the core's go with an edit.
    if (tried) setErrors(problems(next));
    else if (field) setErrors((current) => ({ ...current, [field]: undefined }));
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    const found = problems(draft);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    const url = draft.url.trim();
    const events = draft.all ? null : ([...draft.chosen] as EventType[]);
    const description = draft.description.trim();
    void run(
      async () => {
        if (!webhook) {
          const created = await create({
            url,
            ...(events ? { events } : {}),
            ...(description ? { description } : {}),
          });
          onCreated?.(created);
          return;
        }
        const body: UpdateWebhookBody = {};
        if (url !== webhook.url) body.url = url;
        if (JSON.stringify(events) !== JSON.stringify(webhook.events)) body.events = events;
        if ((description || null) !== webhook.description) body.description = description || null;
        if (Object.keys(body).length > 0) await update(webhook.id, body);
        notify('success', 'Endpoint saved.');
        onClose();
      },
      (e) => {
        const field = fieldOf(e);
        if (!field || !(e instanceof Error)) return false;
        setErrors((current) => ({ ...current, [field]: sentence(e.message) }));
        return true;
      },
    );
  };

  return (
    <FormDialog
      title={webhook ? 'Edit endpoint' : 'Add an endpoint'}
      onClose={onClose}
      onSubmit={submit}
      submitLabel={busy ? 'Saving…' : webhook ? 'Save' : 'Add endpoint'}
      submitTestId="webhook-save"
      busy={busy}
      error={error ? sentence(error) : null}
      size="large"
      testId="webhook-dialog"
      lead={
        <p className="dialog-lead">
          Parley sends each event to this address as an HTTP POST with a JSON body, signed with the
          endpoint’s secret. An answer in the 2xx range counts as delivered; anything else is tried
          again for up to 3 days.
        </p>
      }
    >
      <TextField
        id="webhook-url"
        label="Endpoint URL"
        type="url"
        value={draft.url}
        placeholder="https://example.com/hooks/parley"
        error={errors.url}
        onChange={(url) => change({ url }, 'url')}
        hint="A public address. Addresses on this computer or your own network need an admin to allow them."
        mono
      />
      <TextField
        id="webhook-description"
        label="Description (optional)"
        value={draft.description}
        placeholder="e.g. Order sync with the shop"
        error={undefined}
        onChange={(description) => change({ description })}
      />
      <EventPicker
        all={draft.all}
        onAllChange={(all) => change({ all }, 'events')}
        chosen={draft.chosen}
        onChosenChange={(chosen) => change({ chosen }, 'events')}
        error={errors.events}
      />
    </FormDialog>
  );
}
