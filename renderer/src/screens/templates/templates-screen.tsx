import { useState } from 'react';
import type { Template } from '../../../../shared/schemas/index.ts';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { SyncIcon } from '../../components/icons.tsx';
import { plural } from '../../components/format.ts';
import { ReadOnlyNote, useRightGate } from '../../components/needs-right.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { useLoadWhenIdle } from '../../components/use-load-when-idle.ts';
import { notify, notifyError } from '../../stores/toasts.ts';
import { useTemplates } from '../../stores/templates.ts';
import { DeleteTemplateDialog } from './delete-template-dialog.tsx';
import { ReviewDialog } from './review-dialog.tsx';
import { TemplateEditor } from './template-editor.tsx';
import { TemplateList } from './template-list.tsx';

type View = { mode: 'list' } | { mode: 'create' } | { mode: 'edit'; template: Template };

export function TemplatesScreen() {
  const status = useTemplates((s) => s.status);
  const error = useTemplates((s) => s.error);
  const load = useTemplates((s) => s.load);
  const sync = useTemplates((s) => s.sync);

  const [view, setView] = useState<View>({ mode: 'list' });
  const [deleting, setDeleting] = useState<Template | null>(null);
  const [reviewing, setReviewing] = useState<Template | null>(null);
  const [syncing, setSyncing] = useState(false);
  const [lastSync, setLastSync] = useState<string | null>(null);
  // Syncing writes what the provider decided: it is a change like the others.
  const { gate } = useRightGate('templates.write');

  useLoadWhenIdle(status, load);

  if (view.mode !== 'list') {
    return (
      <TemplateEditor
        template={view.mode === 'edit' ? view.template : null}
        onDone={() => setView({ mode: 'list' })}
      />
    );
  }

  const runSync = async () => {
    setSyncing(true);
    try {
      const reviewed = await sync();
      const text =
        reviewed === 0
          ? 'Sync complete: no pending reviews were completed.'
          : `Sync complete: ${plural(reviewed, 'review')} completed.`;
      setLastSync(text);
      notify('success', text);
    } catch (e) {
      notifyError(e);
    } finally {
      setSyncing(false);
    }
  };

  return (
    <div className="screen" data-testid="screen-templates">
      <PageHeader
        title="Templates"
        description={
          <>
            Pre-approved messages that may start a conversation at any time. New and edited
            templates go to the channel provider for review; only approved ones can be sent.
          </>
        }
        actions={
          <>
            <button
              type="button"
              className="button"
              {...gate}
              onClick={() => void runSync()}
              disabled={syncing || gate.disabled}
              data-testid="templates-sync"
              title={gate.title ?? 'Ask the provider for pending reviews and reconcile statuses'}
            >
              <SyncIcon />
              {syncing ? 'Syncing…' : 'Sync'}
            </button>
            <button
              type="button"
              className="button button-primary"
              {...gate}
              onClick={() => setView({ mode: 'create' })}
              data-testid="new-template"
            >
              New template
            </button>
          </>
        }
      />

      {lastSync ? (
        <div className="banner banner-info" role="status" data-testid="sync-result">
          <span className="banner-text">{lastSync}</span>
          <button type="button" className="button button-small" onClick={() => setLastSync(null)}>
            Dismiss
          </button>
        </div>
      ) : null}

      <ReadOnlyNote right="templates.write" what="templates" />
      {status === 'error' && error ? <ErrorBanner message={error} onRetry={load} /> : null}

      <TemplateList
        onEdit={(template) => setView({ mode: 'edit', template })}
        onDelete={setDeleting}
        onReview={setReviewing}
        onCreate={() => setView({ mode: 'create' })}
      />

      {deleting ? (
        <DeleteTemplateDialog template={deleting} onClose={() => setDeleting(null)} />
      ) : null}
      {reviewing ? <ReviewDialog template={reviewing} onClose={() => setReviewing(null)} /> : null}
    </div>
  );
}
