import type { ReactNode } from 'react';
import { formatMicros, parseAmountToMicros } from '../../../../shared/money.ts';
import {
  apiBaseUrl,
  type WorkspaceSettings,
  type WorkspaceSettingsBody,
} from '../../api/client.ts';
import { CheckField } from '../../components/check-field.tsx';
import { FormError } from '../../components/form-error.tsx';
import { useRightGate } from '../../components/needs-right.tsx';
import { TextField } from '../../components/text-field.tsx';
import { useAction } from '../../components/use-action.ts';
import { useSettingsForm } from '../../components/use-settings-form.ts';
import { notify } from '../../stores/toasts.ts';
import { selectIsLowBalance, useWallet } from '../../stores/wallet.ts';
import { useWorkspaceSettings } from '../../stores/workspace-settings.ts';
import { isWebUrl } from './channel-draft.ts';

/** A card of Settings → Workspace: its title (the card's name) and what it holds. */
export function WorkspaceCard({
  id,
  title,
  children,
}: {
  id: string;
  title: string;
  children: ReactNode;
}) {
  return (
    <section className="card" aria-labelledby={`${id}-title`} data-testid={id}>
      <h2 className="card-title" id={`${id}-title`}>
        {title}
      </h2>
      <div className="form-stack">{children}</div>
    </section>
  );
}

/** Webhooks: whether webhook, workflow and SMTP targets may be on this machine or the LAN. */
export function WebhooksSection({ settings }: { settings: WorkspaceSettings }) {
  const update = useWorkspaceSettings((s) => s.update);
  const { gate } = useRightGate('workspace.manage');
  const { busy, error, run } = useAction();
  const change = (on: boolean) =>
    run(async () => {
      await update({ allowPrivateWebhooks: on });
      notify(
        'success',
        on ? 'Private and loopback targets are allowed.' : 'Only public targets are allowed.',
      );
    });
  return (
    <WorkspaceCard id="ws-webhooks" title="Webhooks">
      <CheckField
        id="ws-allow-private"
        label="Allow private and loopback addresses"
        checked={settings.allowPrivateWebhooks}
        disabled={busy}
        gate={gate}
        onChange={(on) => void change(on)}
        help={
          <>
            Webhooks, workflow webhook steps and the SMTP server may then be on this computer
            (127.0.0.1, localhost) or your local network (10.x, 192.168.x). Off by default, so a
            webhook cannot be pointed at services inside your network. Turn it on to test with a
            receiver on this machine.
          </>
        }
      />
      <FormError error={error} testId="ws-webhooks-error" />
    </WorkspaceCard>
  );
}

/** An amount in a currency's units, as typed (`5`, `12.50`), from micros. */
function amountText(micros: number): string {
  const units = micros / 1_000_000;
  return Number.isInteger(units * 100) ? units.toFixed(2) : String(units);
}

/**
 * A card form's foot: what failed that is no one field's, and its Save button (only once
 * something changed; disabled, saying why, without the right to change settings).
 */
export function SaveFoot({
  form,
  id,
  label,
}: {
  form: { formError: string | null; busy: boolean; dirty: boolean };
  /** The form's id: the button's test id is `<id>-save`. */
  id: string;
  label: string;
}) {
  const { gate } = useRightGate('workspace.manage');
  return (
    <>
      <FormError error={form.formError} testId={`${id}-form-error`} />
      <div>
        <button
          type="submit"
          className="button button-primary"
          {...gate}
          disabled={gate.disabled || form.busy || !form.dirty}
          data-testid={`${id}-save`}
        >
          {form.busy ? 'Saving…' : label}
        </button>
      </div>
    </>
  );
}

type Field = 'lowBalanceThresholdMicros' | 'publicUrl';

/**
 * One setting typed into a field and saved with its button: checked before it is sent, the
 * core's answer (or its 400 on this field) shown under it.
 */
function SettingField({
  settings,
  field,
  id,
  text,
  problem,
  value,
  saveLabel,
  savedMessage,
  render,
}: {
  settings: WorkspaceSettings;
  field: Field;
  /** The input's id and test id; the button's is `<id>-save`. */
  id: string;
  /** The setting as the field shows it. */
  text: (settings: WorkspaceSettings) => string;
  /** What is wrong with what was typed, or null. */
  problem: (typed: string) => string | null;
  value: (typed: string) => WorkspaceSettingsBody[Field];
  saveLabel: string;
  savedMessage: string;
  render: (field: {
    value: string;
    error: string | undefined;
    onChange: (v: string) => void;
  }) => ReactNode;
}) {
  const update = useWorkspaceSettings((s) => s.update);
  const form = useSettingsForm({
    settings,
    draftOf: (s: WorkspaceSettings) => ({ typed: text(s) }),
    check: (d): Record<string, string> => {
      const why = problem(d.typed);
      return why ? { [field]: why } : {};
    },
    order: [field],
    paramOf: (param) => (param === field ? field : null),
    fieldId: () => id,
    send: (d) => update({ [field]: value(d.typed) }),
    onSaved: () => undefined,
    savedMessage,
  });
  return (
    <form className="form-stack" onSubmit={form.submit} noValidate>
      {render({
        value: form.draft.typed,
        error: form.errors[field],
        onChange: (typed) => form.change({ typed }, [field]),
      })}
      <SaveFoot form={form} id={id} label={saveLabel} />
    </form>
  );
}

/** Wallet: the balance under which the desk warns (and `wallet.low_balance` fires). */
export function WalletSection({ settings }: { settings: WorkspaceSettings }) {
  const wallet = useWallet((s) => s.wallet);
  const low = useWallet(selectIsLowBalance);
  const currency = wallet?.currency ?? 'USD';
  return (
    <WorkspaceCard id="ws-wallet" title="Wallet">
      <SettingField
        settings={settings}
        field="lowBalanceThresholdMicros"
        id="ws-low-balance"
        text={(s) => amountText(s.lowBalanceThresholdMicros)}
        problem={(typed) =>
          parseAmountToMicros(typed) === null
            ? 'Enter an amount such as 5 or 12.50 (0 turns the warning off).'
            : null
        }
        value={(typed) => parseAmountToMicros(typed) ?? 0}
        saveLabel="Save threshold"
        savedMessage="Low-balance threshold saved."
        render={(field) => (
          <TextField
            id="ws-low-balance"
            label={`Low-balance threshold (${currency})`}
            className="field-amount"
            {...field}
            hint={
              <>
                While the balance is under it, every screen of live mode warns in the top bar, and
                the <code>wallet.low_balance</code> event fires when a charge crosses it.
                {wallet ? (
                  <>
                    {' '}
                    The balance is {formatMicros(wallet.balanceMicros, currency)}
                    {low ? ', under the threshold.' : '.'}
                  </>
                ) : null}
              </>
            }
          />
        )}
      />
    </WorkspaceCard>
  );
}

const URL_MAX = 500;

/** Public URL: where customers (email links) reach this desk from the internet. */
export function PublicUrlSection({ settings }: { settings: WorkspaceSettings }) {
  const own = apiBaseUrl();
  return (
    <WorkspaceCard id="ws-public" title="Public URL">
      <SettingField
        settings={settings}
        field="publicUrl"
        id="ws-public-url"
        text={(s) => s.publicUrl ?? ''}
        problem={(typed) => {
          const url = typed.trim();
          return url && (!isWebUrl(url) || url.length > URL_MAX)
            ? 'An address starting with https:// (or http://), like https://desk.yourshop.com.'
            : null;
        }}
        value={(typed) => typed.trim() || null}
        saveLabel="Save public URL"
        savedMessage="Public URL saved."
        render={(field) => (
          <TextField
            id="ws-public-url"
            label={
              <>
                Public URL <span className="optional">(optional)</span>
              </>
            }
            type="url"
            placeholder={own}
            {...field}
            hint={
              <>
                The address that reaches this desk from the internet (a tunnel such as cloudflared
                or ngrok, or your team’s server). Email tracking and unsubscribe links use it unless
                Email settings give their own. Left empty, they point at this computer,{' '}
                <code>{own}</code>, which recipients cannot open; one-click unsubscribe needs{' '}
                <code>https://</code>.
              </>
            }
          />
        )}
      />
    </WorkspaceCard>
  );
}
