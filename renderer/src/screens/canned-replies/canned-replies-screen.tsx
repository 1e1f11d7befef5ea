import { useState } from 'react';
import type { CannedReply } from '../../../../shared/schemas/index.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { formatDateTime } from '../../components/format.ts';
import { PlusIcon } from '../../components/icons.tsx';
import { ListIntro } from '../../components/list-intro.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { SearchField } from '../../components/search-field.tsx';
import { EditDeleteCell, PagedTable } from '../../components/table.tsx';
import { useDebounced } from '../../components/use-debounced.ts';
import { useLoadWhenIdle } from '../../components/use-load-when-idle.ts';
import { useCannedReplies } from '../../stores/canned-replies.ts';
import { hrefFor } from '../../stores/route.ts';
import { CannedReplyDialog } from './canned-reply-dialog.tsx';
import './canned-replies.css';

type Editing = { reply: CannedReply | null } | null;

function Intro({ onCreate }: { onCreate: () => void }) {
  return (
    <ListIntro
      right="inbox"
      title="Answer common questions in two keystrokes"
      createLabel="Create your first canned reply"
      onCreate={onCreate}
      testId="canned-empty"
      createTestId="canned-create-first"
    >
      <p>
        A canned reply is an answer you send often — opening hours, a refund policy, a thank-you —
        saved under a short name. In the <a href={hrefFor('inbox')}>inbox</a> composer, type{' '}
        <kbd className="kbd">/</kbd> and its name, then press <kbd className="kbd">Enter</kbd> to
        insert it.
      </p>
      <p>
        Write <code>{'{{contact.name}}'}</code> and the like where the customer’s details go: they
        are filled in from the conversation’s contact as you insert the reply.
      </p>
    </ListIntro>
  );
}

export function CannedRepliesScreen() {
  const replies = useCannedReplies((s) => s.replies);
  const status = useCannedReplies((s) => s.status);
  const error = useCannedReplies((s) => s.error);
  const query = useCannedReplies((s) => s.query);
  const load = useCannedReplies((s) => s.load);
  const search = useCannedReplies((s) => s.search);
  const remove = useCannedReplies((s) => s.remove);
  const nextCursor = useCannedReplies((s) => s.nextCursor);
  const loadingMore = useCannedReplies((s) => s.loadingMore);
  const loadMore = useCannedReplies((s) => s.loadMore);

  const [typed, setTyped] = useState(query);
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<CannedReply | null>(null);

  useLoadWhenIdle(status, load);
  useDebounced(typed, (value) => void search(value), 250);

  const loading = status === 'idle' || status === 'loading';
  const nothingYet = !loading && status !== 'error' && replies.length === 0 && !query.trim();
  const create = () => setEditing({ reply: null });

  return (
    <div className="screen" data-testid="screen-canned-replies">
      <PageHeader
        title="Canned replies"
        description={
          <>
            Saved answers for the inbox: type <kbd className="kbd">/</kbd> in the reply box to pick
            one. Each workspace and mode (test or live) has its own.
          </>
        }
        actions={
          <button
            type="button"
            className="button button-primary"
            onClick={create}
            data-testid="canned-new"
          >
            <PlusIcon />
            New canned reply
          </button>
        }
      />

      <section className="card card-flush" aria-label="Canned replies">
        {nothingYet ? (
          <Intro onCreate={create} />
        ) : (
          <>
            <div className="card-header">
              <SearchField
                value={typed}
                onChange={setTyped}
                placeholder="Search shortcuts and text"
                label="Search canned replies"
                testId="canned-search"
              />
            </div>
            {status === 'error' && error ? <ErrorBanner message={error} onRetry={load} /> : null}
            <PagedTable
              hasRows={replies.length > 0}
              emptyTestId="canned-none"
              empty={
                loading ? 'Loading canned replies…' : `No canned reply matches “${query.trim()}”.`
              }
              testId="canned-table"
              columns={['Shortcut', 'Text', 'Updated']}
              actions
              nextCursor={nextCursor}
              loadingMore={loadingMore}
              loadMore={loadMore}
            >
              {replies.map((reply) => (
                <tr key={reply.id} data-testid="canned-row" data-shortcut={reply.shortcut}>
                  <td className="cell-strong nowrap">
                    <code>/{reply.shortcut}</code>
                  </td>
                  <td className="canned-text-cell" data-testid="canned-row-text">
                    {reply.text}
                  </td>
                  <td className="nowrap">{formatDateTime(reply.updatedAt)}</td>
                  <EditDeleteCell
                    right="inbox"
                    what={`/${reply.shortcut}`}
                    onEdit={() => setEditing({ reply })}
                    onDelete={() => setDeleting(reply)}
                    editTestId="canned-edit"
                    deleteTestId="canned-delete"
                  />
                </tr>
              ))}
            </PagedTable>
          </>
        )}
      </section>

      {editing ? (
        <CannedReplyDialog reply={editing.reply} onClose={() => setEditing(null)} />
      ) : null}
      {deleting ? (
        <ConfirmDialog
          title={`Delete /${deleting.shortcut}?`}
          onClose={() => setDeleting(null)}
          onConfirm={() => remove(deleting.id)}
          doneMessage={`Deleted /${deleting.shortcut}.`}
          confirmLabel="Delete"
          busyLabel="Deleting…"
          testId="canned-delete-dialog"
          confirmTestId="canned-delete-confirm"
        >
          Agents will no longer find it under <code>/{deleting.shortcut}</code>. Replies already
          sent are not affected.
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
