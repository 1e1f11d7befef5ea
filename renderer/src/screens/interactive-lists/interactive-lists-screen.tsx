import { Fragment } from 'react';
import { api } from '../../api/client.ts';
import { RecordLoader } from '../../components/record-loader.tsx';
import { hrefFor, useRoute } from '../../stores/route.ts';
import { useSession } from '../../stores/session.ts';
import { ListEditor } from './list-editor.tsx';
import { ListsOverview } from './lists-overview.tsx';
import './interactive-lists.css';

/** The editor of a saved list, read first (`#/interactive-lists/<id>`). */
function SavedListEditor({ id }: { id: string }) {
  return (
    <RecordLoader
      load={() => api.interactiveLists.get(id)}
      back={{ href: hrefFor('interactive-lists'), label: '← Interactive lists' }}
      title="Edit interactive list"
      loadingText="Loading the list…"
      failedText="The list could not be opened."
      testId="list-editor-loading"
    >
      {(list) => <ListEditor list={list} />}
    </RecordLoader>
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
