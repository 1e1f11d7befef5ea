import { Fragment, useEffect, useState } from 'react';
import { api, errorMessage } from '../../api/client.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import type { InteractiveList } from '../../stores/interactive-lists.ts';
import { hrefFor, useRoute } from '../../stores/route.ts';
import { useSession } from '../../stores/session.ts';
import { ListEditor } from './list-editor.tsx';
import { ListsOverview } from './lists-overview.tsx';
import './interactive-lists.css';

type Loaded =
  | { state: 'loading' }
  | { state: 'ready'; list: InteractiveList }
  | { state: 'error'; error: string };

/** The editor of a saved list, read first (`#/interactive-lists/<id>`). */
function SavedListEditor({ id }: { id: string }) {
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let cancelled = false;
    api.interactiveLists.get(id).then(
      (list) => !cancelled && setLoaded({ state: 'ready', list }),
      (e: unknown) => !cancelled && setLoaded({ state: 'error', error: errorMessage(e) }),
    );
    return () => {
      cancelled = true;
    };
  }, [id, attempt]);

  if (loaded.state === 'ready') return <ListEditor list={loaded.list} />;
  return (
    <div
      className="screen"
      aria-busy={loaded.state === 'loading'}
      data-testid="list-editor-loading"
    >
      <PageHeader
        eyebrow={
          <a href={hrefFor('interactive-lists')} className="link-button">
            ← Interactive lists
          </a>
        }
        title="Edit interactive list"
        description={
          loaded.state === 'loading' ? 'Loading the list…' : 'The list could not be opened.'
        }
      />
      {loaded.state === 'error' ? (
        <ErrorBanner
          message={loaded.error}
          onRetry={() => {
            setLoaded({ state: 'loading' });
            setAttempt((n) => n + 1);
          }}
        />
      ) : null}
    </div>
  );
}

/** `#/interactive-lists`, `#/interactive-lists/new` and `#/interactive-lists/<id>` (its editor). */
function ListsView({ subPath }: { subPath: string | null }) {
  if (!subPath) return <ListsOverview />;
  if (subPath === 'new') return <ListEditor list={null} />;
  return <SavedListEditor key={subPath} id={subPath} />;
}

export function InteractiveListsScreen() {
  const subPath = useRoute((s) => s.subPath);
  // A mode or workspace switch starts the screen afresh: the list open belongs to the old scope.
  const scope = useSession((s) => `${s.environment}:${s.workspaceId ?? ''}`);
  return (
    <Fragment key={scope}>
      <ListsView subPath={subPath} />
    </Fragment>
  );
}
