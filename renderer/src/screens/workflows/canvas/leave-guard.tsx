/**
 * Asks "Discard changes?" before an editor with unsaved changes is left: by the app's own
 * navigation (the route store's `navigate`, wrapped while the editor is open), by a link or the
 * address (a `#/…` link's click; back/forward or a typed address, undone before the router
 * sees it), by the editor's Cancel, and by closing or reloading the window (the browser's own
 * beforeunload prompt).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { Dialog } from '../../../components/dialog.tsx';
import { hrefFor, useRoute } from '../../../stores/route.ts';

export function useLeaveGuard(dirty: boolean) {
  const [pending, setPending] = useState<(() => void) | null>(null);
  const dirtyRef = useRef(dirty);
  // Once changes are discarded, the way out is open until the editor goes.
  const released = useRef(false);
  useEffect(() => {
    dirtyRef.current = dirty;
  }, [dirty]);

  /** Runs `proceed` at once when nothing would be lost, else after the user agrees. */
  const confirmLeave = useCallback((proceed: () => void) => {
    if (!dirtyRef.current || released.current) proceed();
    else setPending(() => proceed);
  }, []);

  useEffect(() => {
    const guarding = () => dirtyRef.current && !released.current;
    const original = useRoute.getState().navigate;
    const navigate: typeof original = (route, subPath) =>
      confirmLeave(() => original(route, subPath));
    useRoute.setState({ navigate });

    const onClick = (event: MouseEvent) => {
      if (!guarding() || event.defaultPrevented || event.button !== 0) return;
      if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      const link = (event.target as Element | null)?.closest?.('a[href^="#/"]');
      const href = link?.getAttribute('href');
      if (!href || link?.getAttribute('target') || href === location.hash) return;
      event.preventDefault();
      confirmLeave(() => {
        location.hash = href;
      });
    };
    // Back/forward, a typed address, `location.hash = …`: popstate comes before the router's
    // hashchange, so the editor's address is put back first and the router finds nothing new.
    const { route, subPath } = useRoute.getState();
    const here = hrefFor(route, subPath);
    const onPopState = () => {
      const target = location.hash;
      if (!guarding() || target === here) return;
      history.replaceState(history.state, '', here);
      confirmLeave(() => {
        location.hash = target;
      });
    };
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      if (!guarding()) return;
      event.preventDefault();
      // Older engines show their prompt only when returnValue is set.
      event.returnValue = '';
    };
    document.addEventListener('click', onClick, true);
    window.addEventListener('popstate', onPopState);
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => {
      if (useRoute.getState().navigate === navigate) useRoute.setState({ navigate: original });
      document.removeEventListener('click', onClick, true);
      window.removeEventListener('popstate', onPopState);
      window.removeEventListener('beforeunload', onBeforeUnload);
    };
  }, [confirmLeave]);

  const dialog = pending ? (
    <DiscardDialog
      onKeep={() => setPending(null)}
      onDiscard={() => {
        released.current = true;
        setPending(null);
        pending();
      }}
    />
  ) : null;

  return { confirmLeave, dialog };
}

/** "Discard changes?": keep editing (the default, and Escape) or leave without saving. */
export function DiscardDialog({
  onKeep,
  onDiscard,
  what = 'Your changes to this workflow are not saved.',
  discardLabel = 'Discard changes',
}: {
  onKeep: () => void;
  onDiscard: () => void;
  what?: string;
  discardLabel?: string;
}) {
  return (
    <Dialog
      title="Discard changes?"
      onClose={onKeep}
      size="small"
      testId="wf-discard-dialog"
      footer={
        <>
          <button type="button" className="button" onClick={onKeep} data-testid="wf-discard-keep">
            Keep editing
          </button>
          <button
            type="button"
            className="button button-danger"
            onClick={onDiscard}
            data-testid="wf-discard-confirm"
          >
            {discardLabel}
          </button>
        </>
      }
    >
      <p>{what} Leaving now loses them.</p>
    </Dialog>
  );
}
