import { useEffect, useState, type FormEvent } from 'react';
import { errorMessage, isDesktop } from '../../api/client.ts';
import { FormError } from '../../components/form-error.tsx';
import { formatDate } from '../../components/format.ts';
import { TextField } from '../../components/text-field.tsx';
import { useAction } from '../../components/use-action.ts';
import { notifyError } from '../../stores/toasts.ts';

/**
 * The desktop app's list of desks, on this computer's own desk; null in a browser, and on a
 * joined desk's pages (the shell manages the list from this computer's desk only).
 */
export const desktopDesks = (): ParleyDesks | null =>
  isDesktop() ? (window.parley?.desks ?? null) : null;

function DeskRow({
  desk,
  desks,
  onForgotten,
}: {
  desk: ParleyDesk;
  desks: ParleyDesks;
  onForgotten: (list: ParleyDesk[]) => void;
}) {
  const local = desk.kind === 'local';
  const host = (() => {
    try {
      return new URL(desk.origin).host;
    } catch {
      return desk.origin;
    }
  })();
  return (
    <li className="team-desk" data-testid="team-desk" data-origin={desk.origin}>
      <div className="team-desk-text">
        <span className="cell-strong">{local ? 'This computer' : desk.name}</span>
        <span className="muted small">
          {local ? 'Your own desk' : host}
          {desk.joinedAt ? ` · joined ${formatDate(desk.joinedAt)}` : ''}
        </span>
        {desk.fingerprint ? (
          <code className="team-desk-fingerprint" title="The certificate this desk is pinned to">
            {desk.fingerprint}
          </code>
        ) : null}
      </div>
      <div className="row-actions">
        <button
          type="button"
          className="button button-small"
          aria-label={`Open ${local ? 'this computer’s desk' : desk.name}`}
          onClick={() => {
            desks.open(desk.origin).catch(notifyError);
          }}
          data-testid="team-desk-open"
        >
          Open
        </button>
        {local ? null : (
          <button
            type="button"
            className="button button-small button-danger-ghost"
            aria-label={`Forget ${desk.name}`}
            onClick={() => {
              desks.forget(desk.origin).then(onForgotten, notifyError);
            }}
            data-testid="team-desk-forget"
          >
            Forget
          </button>
        )}
      </div>
    </li>
  );
}

/**
 * "Join a team desk" (desktop app only): paste an invite link; the app checks the desk shows the
 * certificate the link names, remembers it, and opens the desk. Its desks are listed to switch
 * between (also in the Desks menu) or forget.
 */
export function JoinDesk({ desks }: { desks: ParleyDesks }) {
  const [list, setList] = useState<ParleyDesk[] | null>(null);
  const [link, setLink] = useState('');
  const [fieldError, setFieldError] = useState<string | undefined>(undefined);
  const [listError, setListError] = useState<string | null>(null);
  const { busy, error, setError, run } = useAction();

  useEffect(() => {
    let live = true;
    desks.list().then(
      (found) => {
        if (live) setList(found);
      },
      (e: unknown) => {
        if (live) setListError(errorMessage(e));
      },
    );
    return () => {
      live = false;
    };
  }, [desks]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (!link.trim()) return setFieldError('Paste the invite link a teammate sent you.');
    setFieldError(undefined);
    void run(async () => {
      const result = await desks.join(link.trim());
      // On success the window moves to the desk's join page; nothing more to show here.
      if (!result.ok) setError(result.error);
    });
  };

  return (
    <section className="card" aria-labelledby="team-join-title" data-testid="team-join">
      <h2 className="card-title" id="team-join-title">
        Join a team desk
      </h2>
      <form className="form-stack" onSubmit={submit} noValidate>
        <TextField
          id="team-join-link"
          label="Invite link"
          type="url"
          mono
          value={link}
          error={fieldError}
          placeholder="https://192.168.1.20:4780/join#token=…&fp=sha256:…"
          hint="The link an admin of the desk sent you. The app connects only if the desk shows the certificate the link names — no warning to click through, no change to this computer’s trust store."
          onChange={(value) => {
            setLink(value);
            setFieldError(undefined);
          }}
        />
        <FormError error={error} testId="team-join-error" />
        <div>
          <button
            type="submit"
            className="button button-primary"
            disabled={busy}
            data-testid="team-join-submit"
          >
            {busy ? 'Connecting…' : 'Join'}
          </button>
        </div>
      </form>
      <h3 className="team-subtitle" id="team-desks-title">
        Your desks
      </h3>
      {list === null ? (
        listError ? (
          <FormError error={listError} testId="team-desks-error" />
        ) : (
          <p className="hint" aria-busy="true">
            Loading…
          </p>
        )
      ) : (
        <ul className="team-desks" aria-labelledby="team-desks-title" data-testid="team-desks">
          {list.map((desk) => (
            <DeskRow key={desk.origin} desk={desk} desks={desks} onForgotten={setList} />
          ))}
        </ul>
      )}
    </section>
  );
}
