import { notifyError } from '../stores/toasts.ts';

interface LoadMoreProps {
  nextCursor: string | null;
  loadingMore: boolean;
  loadMore: () => Promise<void>;
  testId?: string;
}

/** A paged list's "Load more" footer, while there is more to load. */
export function LoadMore({ nextCursor, loadingMore, loadMore, testId }: LoadMoreProps) {
  if (!nextCursor) return null;
  return (
    <div className="card-footer">
      <button
        type="button"
        className="button"
        disabled={loadingMore}
        onClick={() => loadMore().catch(notifyError)}
        data-testid={testId}
      >
        {loadingMore ? 'Loading…' : 'Load more'}
      </button>
    </div>
  );
}
