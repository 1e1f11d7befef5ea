import { useEffect, useRef, useState } from 'react';
import { api, errorMessage, type UnsubscribePageState } from '../../api/client.ts';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { PillChoice } from './pill-choice.tsx';

const STATES: { value: UnsubscribePageState; label: string }[] = [
  { value: 'ask', label: 'Asking' },
  { value: 'unsubscribed', label: 'Unsubscribed' },
  { value: 'resubscribed', label: 'Subscribed again' },
];

/**
 * The branded page a recipient's unsubscribe link opens, as the core renders it for this
 * campaign, in each of its states. The core marks it "Preview" and its buttons post nowhere: no
 * recipient's link is used and no one is unsubscribed. Shown in a frame that runs no scripts.
 */
function PreviewDialog({ campaignId, onClose }: { campaignId: string; onClose: () => void }) {
  const [state, setState] = useState<UnsubscribePageState>('ask');
  const [page, setPage] = useState<{ html: string | null; error: string | null }>({
    html: null,
    error: null,
  });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let live = true;
    api.email.unsubscribePreview(campaignId, state).then(
      (html) => live && setPage({ html, error: null }),
      (error: unknown) => live && setPage({ html: null, error: errorMessage(error) }),
    );
    return () => {
      live = false;
    };
  }, [campaignId, state, attempt]);

  return (
    <Dialog
      title="Preview the unsubscribe page"
      onClose={onClose}
      size="large"
      testId="email-unsubscribe-preview"
      footer={
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
      }
    >
      <p className="hint">
        What a recipient sees after the unsubscribe link at the end of this campaign’s emails. Only
        a preview: nobody is unsubscribed.
      </p>
      <PillChoice
        legend="Show the page"
        name="email-unsubscribe-preview-state"
        options={STATES}
        value={state}
        onChange={setState}
        testId="email-unsubscribe-preview-state"
      />
      {page.error ? (
        <ErrorBanner message={page.error} onRetry={() => setAttempt((n) => n + 1)} />
      ) : null}
      {page.html !== null ? (
        <iframe
          className="email-frame email-unsubscribe-frame"
          title="The unsubscribe page, as a recipient sees it (preview)"
          // Scripts never run in it; same-origin only lets it load the page's stylesheet.
          sandbox="allow-same-origin"
          referrerPolicy="no-referrer"
          srcDoc={page.html}
          data-testid="email-unsubscribe-preview-frame"
        />
      ) : null}
    </Dialog>
  );
}

/** "Preview the unsubscribe page" and the dialog it opens. */
export function UnsubscribePreviewButton({ campaignId }: { campaignId: string }) {
  const [open, setOpen] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const wasOpen = useRef(false);
  useEffect(() => {
    // The dialog leaves the page as it closes: focus goes back to what opened it.
    if (!open && wasOpen.current) opener.current?.focus();
    wasOpen.current = open;
  }, [open]);
  const close = () => setOpen(false);
  return (
    <>
      <button
        ref={opener}
        type="button"
        className="link-button"
        onClick={() => setOpen(true)}
        data-testid="email-unsubscribe-preview-open"
      >
        Preview the unsubscribe page
      </button>
      {open ? <PreviewDialog campaignId={campaignId} onClose={close} /> : null}
    </>
  );
}
