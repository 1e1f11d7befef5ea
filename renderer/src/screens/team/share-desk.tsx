import { useState } from 'react';
import type { TeamStatus } from '../../../../shared/schemas/team.ts';
import { CheckField } from '../../components/check-field.tsx';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { errorAria, FieldError } from '../../components/field-error.tsx';
import { FormError } from '../../components/form-error.tsx';
import { formatDate } from '../../components/format.ts';
import { useRightGate } from '../../components/needs-right.tsx';
import { SecretBox } from '../../components/secret-box.tsx';
import { useAction } from '../../components/use-action.ts';
import { useLoadWhenIdle } from '../../components/use-load-when-idle.ts';
import { useNow } from '../../components/use-now.ts';
import { useTeam } from '../../stores/team.ts';
import { notify } from '../../stores/toasts.ts';

/** Where sharing starts unless told otherwise (the core's default). */
const DEFAULT_PORT = 4780;
/** A certificate this close to its end is renewed at the next start of sharing. */
const RENEW_WITHIN_MS = 30 * 86_400_000;

/** The port field's words about what was typed, or null when it is a port. */
function portProblem(value: string): string | null {
  if (!/^\d{1,5}$/.test(value.trim())) return 'Enter a port number, e.g. 4780.';
  const port = Number(value);
  if (port < 1 || port > 65535) return 'A port is between 1 and 65535.';
  return null;
}

/** The certificate: until when, whose, and whether this start renewed it (a new fingerprint). */
function CertificateFacts({ desk, now }: { desk: TeamStatus; now: number }) {
  const cert = desk.certificate;
  if (!cert) return null;
  const ends = Date.parse(cert.notAfter);
  const soon = ends - now < RENEW_WITHIN_MS;
  return (
    <>
      <div className="team-fact">
        <span className="field-label">Certificate</span>
        <span data-testid="team-certificate-expiry">
          {cert.selfSigned ? 'Made by Parley (self-signed)' : 'Your own certificate'}, valid until{' '}
          {formatDate(cert.notAfter)}
        </span>
        {soon ? (
          <span className="hint">
            {cert.selfSigned
              ? 'It ends within 30 days: Parley renews it the next time sharing starts (the fingerprint changes).'
              : 'It ends within 30 days: replace it with a new one before then.'}
          </span>
        ) : null}
      </div>
      {cert.renewedFrom ? (
        <div className="banner banner-warning" role="note" data-testid="team-certificate-renewed">
          <span className="banner-text">
            The certificate was renewed, so its fingerprint changed (it was{' '}
            <code className="team-fingerprint-old">{cert.renewedFrom}</code>). Desktops that joined
            before refuse the new one until they paste a new invite: invite those teammates again.
          </span>
        </div>
      ) : null}
    </>
  );
}

/** What a shared desk shows: where teammates reach it, its fingerprint, the LAN announcement. */
function SharedDetails({
  desk,
  busy,
  onAnnounce,
}: {
  desk: TeamStatus;
  busy: boolean;
  onAnnounce: (on: boolean) => void;
}) {
  const now = useNow(60_000);
  const { gate } = useRightGate('team');
  return (
    <div className="form-stack" data-testid="team-shared">
      <div className="team-fact">
        <span className="field-label" id="team-addresses-label">
          Addresses
        </span>
        <ul className="team-addresses" aria-labelledby="team-addresses-label">
          {desk.addresses.map((address) => (
            <li key={address} data-testid="team-address">
              <code>{address}</code>
            </li>
          ))}
        </ul>
        <span className="hint">
          Teammates reach the desk at one of these, from the same network. It speaks HTTPS only.
        </span>
      </div>
      {desk.fingerprint ? (
        <div className="team-fact">
          <span className="field-label">Certificate fingerprint</span>
          <SecretBox
            secret={desk.fingerprint}
            testId="team-fingerprint"
            copyTestId="team-fingerprint-copy"
          />
          <span className="hint">
            Invite links made now carry it, so the Parley app on a teammate’s computer trusts
            exactly this certificate — no warning, no change to its trust store. In a browser,
            compare it with the one the browser shows before trusting the certificate.
          </span>
        </div>
      ) : null}
      <CertificateFacts desk={desk} now={now} />
      <CheckField
        id="team-announce"
        label="Announce this desk on the network"
        checked={desk.announce}
        disabled={busy}
        gate={gate}
        onChange={onAnnounce}
        help={
          <>
            Lets “Join a team desk” on your teammates’ computers find it without a link, by
            announcing its name and fingerprint on the local network (mDNS, like a network printer).
            Anyone on the network can then see that a Parley desk runs here. Off unless you turn it
            on; an invite link works either way.
          </>
        }
      />
    </div>
  );
}

/**
 * "Share this desk on my network" (README "Working as a team"): starts or stops the TLS address
 * other desktops join, and shows what they need to trust it.
 */
export function ShareDesk() {
  const { data: desk, status, error: loadError } = useTeam((s) => s.desk);
  const load = useTeam((s) => s.loadDesk);
  const share = useTeam((s) => s.share);
  const { gate } = useRightGate('team');
  const [port, setPort] = useState<string | null>(null);
  const { busy, error, run } = useAction();
  const [confirmStop, setConfirmStop] = useState(false);

  useLoadWhenIdle(status, load);

  const portText = port ?? String(desk?.port ?? DEFAULT_PORT);
  const portError = port === null ? null : portProblem(port);

  const change = (body: Parameters<typeof share>[0], done: string) =>
    run(async () => {
      await share(body);
      notify('success', done);
    });

  const start = () => {
    if (portError) return;
    void change(
      { enabled: true, ...(port !== null ? { port: Number(port) } : {}) },
      'This desk is shared on your network.',
    );
  };

  if (!desk) {
    return (
      <section className="card" aria-labelledby="team-share-title" data-testid="team-share">
        <h2 className="card-title" id="team-share-title">
          Share this desk on my network
        </h2>
        {status === 'error' && loadError ? (
          <ErrorBanner message={loadError} onRetry={() => void load()} />
        ) : (
          <p className="hint" aria-busy="true">
            Loading…
          </p>
        )}
      </section>
    );
  }

  return (
    <section className="card" aria-labelledby="team-share-title" data-testid="team-share">
      <h2 className="card-title" id="team-share-title">
        Share this desk on my network
      </h2>
      <div className="form-stack">
        <CheckField
          id="team-share-toggle"
          label="Share this desk on my network"
          checked={desk.sharing}
          disabled={busy || (!desk.sharing && portError !== null)}
          gate={gate}
          onChange={(on) => (on ? start() : setConfirmStop(true))}
          help={
            desk.sharing ? (
              <>
                Shared: teammates on this network work in this desk from their own computers, over
                an encrypted connection (TLS). Its data stays on this computer.
              </>
            ) : (
              <>
                Lets teammates on this network (the office Wi-Fi or LAN) work in this desk from
                their own computers, over an encrypted connection (TLS). The data stays on this
                computer, which must stay on while they work.
              </>
            )
          }
        />
        {desk.sharing ? null : (
          <div className="field team-port">
            <label htmlFor="team-port">Port</label>
            <input
              id="team-port"
              className={`input${portError ? ' invalid' : ''}`}
              inputMode="numeric"
              value={portText}
              disabled={busy || gate.disabled}
              {...errorAria('team-port', portError ?? undefined, 'team-port-hint')}
              onChange={(event) => setPort(event.target.value)}
              data-testid="team-port"
            />
            <FieldError fieldId="team-port" message={portError ?? undefined} />
            <p className="hint" id="team-port-hint">
              Teammates connect to this port. Change it only if another program uses it.
            </p>
          </div>
        )}
        {busy ? (
          <p className="hint" role="status" data-testid="team-share-busy">
            {desk.sharing ? 'Updating…' : 'Starting…'}
          </p>
        ) : null}
        <FormError error={error} testId="team-share-error" />
        {desk.sharing ? (
          <SharedDetails
            desk={desk}
            busy={busy}
            onAnnounce={(announce) =>
              void change(
                { enabled: true, announce },
                announce
                  ? 'This desk is announced on your network.'
                  : 'This desk is no longer announced.',
              )
            }
          />
        ) : null}
        <p className="hint team-invite-note">
          Invites you make in Settings → Members while the desk is shared name its network address
          and carry its certificate fingerprint: pasted into “Join a team desk” in the Parley app,
          the link connects to this desk and trusts nothing else.
        </p>
      </div>
      {confirmStop ? (
        <ConfirmDialog
          title="Stop sharing this desk?"
          onClose={() => setConfirmStop(false)}
          onConfirm={() => share({ enabled: false })}
          doneMessage="This desk is no longer shared."
          confirmLabel="Stop sharing"
          busyLabel="Stopping…"
          testId="team-stop-dialog"
          confirmTestId="team-stop-confirm"
        >
          Teammates working in it from other computers are disconnected at once
          {location.protocol === 'https:' ? ', and so is this page (it came over the network)' : ''}
          . They can work again when you share it again; their invites stay valid while the
          certificate does.
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
