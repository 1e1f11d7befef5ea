import { useState } from 'react';
import { listText, rowCount } from '../../../../shared/list-rules.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { formatDateTime, plural } from '../../components/format.ts';
import { PlusIcon } from '../../components/icons.tsx';
import { ListIntro } from '../../components/list-intro.tsx';
import { ReadOnlyNote, useRightGate } from '../../components/needs-right.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { EditDeleteCell, PagedTable, type Column } from '../../components/table.tsx';
import { useLoadWhenIdle } from '../../components/use-load-when-idle.ts';
import { useInteractiveLists, type InteractiveList } from '../../stores/interactive-lists.ts';
import { hrefFor, useRoute } from '../../stores/route.ts';

function Intro({ onCreate }: { onCreate: () => void }) {
  return (
    <ListIntro
      right="lists.write"
      title="Let customers answer with a tap"
      createLabel="Create your first list"
      onCreate={onCreate}
      testId="lists-empty"
      createTestId="lists-create-first"
    >
      <p>
        An interactive list is a message with a button that opens a menu: support topics, delivery
        slots, store locations. The customer picks one row, and the pick arrives in the{' '}
        <a href={hrefFor('inbox')}>inbox</a> as their answer.
      </p>
      <p>
        Send a saved list from the inbox composer while the conversation’s 24-hour window is open,
        or from a script with <code>POST /api/send-list</code>.
      </p>
    </ListIntro>
  );
}

const COLUMNS: Column[] = ['Name', 'Button', { label: 'Contents', className: 'nowrap' }, 'Updated'];

export const listSize = (list: Pick<InteractiveList, 'sections'>): string =>
  `${plural(list.sections.length, 'section')} · ${plural(rowCount(list), 'row')}`;

/** The saved lists: what each holds, when it changed, and a way to edit or delete it. */
export function ListsOverview() {
  const lists = useInteractiveLists((s) => s.lists);
  const status = useInteractiveLists((s) => s.status);
  const error = useInteractiveLists((s) => s.error);
  const load = useInteractiveLists((s) => s.load);
  const remove = useInteractiveLists((s) => s.remove);
  const nextCursor = useInteractiveLists((s) => s.nextCursor);
  const loadingMore = useInteractiveLists((s) => s.loadingMore);
  const loadMore = useInteractiveLists((s) => s.loadMore);
  const navigate = useRoute((s) => s.navigate);
  const [deleting, setDeleting] = useState<InteractiveList | null>(null);
  const { gate } = useRightGate('lists.write');

  useLoadWhenIdle(status, load);

  const loading = status === 'idle' || status === 'loading';
  const nothingYet = !loading && status !== 'error' && lists.length === 0;
  const create = () => navigate('interactive-lists', 'new');

  return (
    <div className="screen" data-testid="screen-interactive-lists">
      <PageHeader
        title="Interactive lists"
        description="Menus of choices to send in a conversation: a button opens the list, the customer picks a row, and their pick comes back to the inbox."
        actions={
          <button
            type="button"
            className="button button-primary"
            {...gate}
            onClick={create}
            data-testid="list-new"
          >
            <PlusIcon />
            New list
          </button>
        }
      />

      <ReadOnlyNote right="lists.write" what="the lists" />
      {status === 'error' && error ? <ErrorBanner message={error} onRetry={load} /> : null}

      <section className="card card-flush" aria-label="Interactive lists">
        {nothingYet ? (
          <Intro onCreate={create} />
        ) : (
          <PagedTable
            hasRows={lists.length > 0}
            emptyTestId="lists-none"
            empty={loading ? 'Loading lists…' : 'No lists.'}
            testId="lists-table"
            columns={COLUMNS}
            actions
            nextCursor={nextCursor}
            loadingMore={loadingMore}
            loadMore={loadMore}
          >
            {lists.map((list) => (
              <tr key={list.id} data-testid="lists-row" data-list-id={list.id}>
                <td className="lists-name-cell">
                  <a
                    href={hrefFor('interactive-lists', list.id)}
                    className="cell-strong"
                    data-testid="list-link"
                  >
                    {list.name}
                  </a>
                  <div className="muted small truncate">{listText(list)}</div>
                </td>
                <td className="nowrap">{list.buttonText}</td>
                <td className="nowrap" data-testid="list-size">
                  {listSize(list)}
                </td>
                <td className="nowrap muted">{formatDateTime(list.updatedAt)}</td>
                <EditDeleteCell
                  right="lists.write"
                  what={list.name}
                  onEdit={() => navigate('interactive-lists', list.id)}
                  onDelete={() => setDeleting(list)}
                  editTestId="list-edit"
                  deleteTestId="list-delete"
                />
              </tr>
            ))}
          </PagedTable>
        )}
      </section>

      {deleting ? (
        <ConfirmDialog
          title={`Delete “${deleting.name}”?`}
          onClose={() => setDeleting(null)}
          onConfirm={() => remove(deleting.id)}
          doneMessage={`Deleted the list “${deleting.name}”.`}
          confirmLabel="Delete"
          busyLabel="Deleting…"
          testId="list-delete-dialog"
          confirmTestId="list-delete-confirm"
        >
          It can no longer be sent. Messages that already sent it keep their copy, and picks from it
          still arrive.
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
