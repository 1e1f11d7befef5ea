import { useEffect, useState, type FormEvent } from 'react';
import { ApiRequestError } from '../../api/client.ts';
import { FormError } from '../../components/form-error.tsx';
import { ListIcon } from '../../components/icons.tsx';
import { useAction } from '../../components/use-action.ts';
import { ListPreview } from '../../components/list-preview.tsx';
import { useInteractiveLists } from '../../stores/interactive-lists.ts';
import { hrefFor } from '../../stores/route.ts';
import { useThread } from '../../stores/thread.ts';
import { listSize } from '../interactive-lists/lists-overview.tsx';

/** Why the composer's list button is disabled while the window is closed. */
export const LIST_CLOSED_HINT =
  'Interactive lists can only be sent within 24 hours of the customer’s last message.';

/** Sends a saved interactive list into the open conversation (inside the 24 h window). */
export function ListReply({ inputId, onDone }: { inputId: string; onDone: () => void }) {
  const library = useInteractiveLists((s) => s.library);
  const status = useInteractiveLists((s) => s.libraryStatus);
  const loadError = useInteractiveLists((s) => s.libraryError);
  const ensureLibrary = useInteractiveLists((s) => s.ensureLibrary);
  const refreshLibrary = useInteractiveLists((s) => s.refreshLibrary);
  const reply = useThread((s) => s.reply);
  const reload = useThread((s) => s.reload);
  const [listId, setListId] = useState('');
  const { busy, error, setError, run } = useAction();

  // Lists saved elsewhere since the library was read show up each time the picker opens.
  useEffect(() => {
    ensureLibrary();
    refreshLibrary();
  }, [ensureLibrary, refreshLibrary]);

  const list = library.find((l) => l.id === listId) ?? null;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!list || busy) return;
    await run(
      async () => {
        await reply({ listId: list.id });
        onDone();
      },
      (e) => {
        // The window closed meanwhile: fetch the conversation so the composer offers templates.
        if (e instanceof ApiRequestError && e.code === 'outside_service_window') void reload();
      },
    );
  };

  if (status === 'ready' && library.length === 0) {
    return (
      <div className="reply-form" data-testid="reply-list-form">
        <p className="composer-note" data-testid="reply-no-lists">
          No saved lists yet.{' '}
          <a href={hrefFor('interactive-lists', 'new')}>Create one in Interactive lists</a>; it can
          then be sent from here.
        </p>
        <div className="reply-template-actions">
          <button type="button" className="button" onClick={onDone} id={inputId}>
            Back to the reply
          </button>
        </div>
      </div>
    );
  }

  return (
    <form
      className="reply-form reply-template"
      onSubmit={submit}
      noValidate
      data-testid="reply-list-form"
    >
      {/* The whole width for the select: a list's name and size read in full at 1024 px. */}
      <select
        id={inputId}
        className="select reply-list-select"
        aria-label="Interactive list"
        value={listId}
        onChange={(event) => {
          setListId(event.target.value);
          setError(null);
        }}
        data-testid="reply-list-select"
      >
        <option value="">{status === 'ready' ? 'Choose a list…' : 'Loading lists…'}</option>
        {library.map((l) => (
          <option key={l.id} value={l.id}>
            {`${l.name} (${listSize(l)})`}
          </option>
        ))}
      </select>
      <div className={`reply-template-grid${list ? ' with-preview' : ''}`}>
        <div className="reply-template-fields">
          {status === 'error' && loadError ? <FormError error={loadError} /> : null}
          <p className="composer-note">
            The customer taps the list’s button and picks a row; their pick arrives here.
          </p>
          <FormError error={error} testId="reply-error" />
          <div className="reply-template-actions">
            <button type="button" className="button" onClick={onDone} disabled={busy}>
              Cancel
            </button>
            <button
              type="submit"
              className="button button-primary"
              disabled={!list || busy}
              data-testid="reply-list-send"
            >
              <ListIcon size={16} />
              {busy ? 'Sending…' : 'Send list'}
            </button>
          </div>
        </div>
        {list ? (
          <div className="reply-template-preview">
            <ListPreview list={list} testId="reply-list-preview" />
          </div>
        ) : null}
      </div>
    </form>
  );
}
