import { useMemo, useRef, useState } from 'react';
import { renderEmailHtml, renderEmailText } from '../../../../shared/email-rules.ts';
import type { PlaceholderContact } from '../../../../shared/placeholders.ts';
import { useDebounced } from '../../components/use-debounced.ts';
import { applyPreviewStyles, approximateText, prepareEmailPreview } from './email-preview-html.ts';

/** How long typing pauses before the preview is drawn again (a frame reload is not free). */
const SETTLE_MS = 250;

interface EmailFrameProps {
  html: string;
  contact: PlaceholderContact;
  /** The frame's accessible name. */
  title: string;
  testId: string;
}

/**
 * An email's HTML as a recipient's mail app would show it, filled in for one contact, in a
 * sandboxed frame that runs no scripts (see email-preview-html.ts for what it leaves out).
 */
export function EmailFrame({ html, contact, title, testId }: EmailFrameProps) {
  const [settled, setSettled] = useState(html);
  const frameRef = useRef<HTMLIFrameElement>(null);
  const scrollRef = useRef(0);
  useDebounced(
    html,
    (value) => {
      // A new document starts at the top: keep the reader where they were.
      scrollRef.current = frameRef.current?.contentDocument?.scrollingElement?.scrollTop ?? 0;
      setSettled(value);
    },
    SETTLE_MS,
  );
  const prepared = useMemo(
    () => prepareEmailPreview(renderEmailHtml(settled, contact)),
    [settled, contact],
  );

  return (
    <>
      <iframe
        ref={frameRef}
        className="email-frame"
        title={title}
        // Scripts never run in it; same-origin only lets this page apply the email's styles.
        sandbox="allow-same-origin"
        referrerPolicy="no-referrer"
        srcDoc={prepared.srcdoc}
        onLoad={(event) => {
          const frame = event.currentTarget;
          applyPreviewStyles(frame, prepared);
          const scroller = frame.contentDocument?.scrollingElement;
          if (scroller) scroller.scrollTop = scrollRef.current;
        }}
        data-testid={testId}
      />
      {prepared.remoteImages > 0 ? (
        <p className="hint" data-testid={`${testId}-images`}>
          {prepared.remoteImages === 1
            ? 'One image is on another site'
            : `${prepared.remoteImages} images are on other sites`}
          : the preview does not load it, recipients’ mail apps will (or ask first).
        </p>
      ) : null}
    </>
  );
}

/** The plain-text alternative as sent: the one written, or (roughly) the one made from the HTML. */
export function EmailTextPreview({
  html,
  text,
  contact,
  testId,
}: {
  html: string;
  text: string;
  contact: PlaceholderContact;
  testId: string;
}) {
  const generated = !text.trim();
  const shown = useMemo(
    () =>
      generated ? renderEmailText(approximateText(html), contact) : renderEmailText(text, contact),
    [generated, html, text, contact],
  );
  return (
    <>
      {generated ? (
        <p className="hint">
          Made from the HTML when the email is sent; this is close to what recipients get.
        </p>
      ) : null}
      <pre className="email-text-preview" data-testid={testId} tabIndex={0}>
        {shown || ' '}
      </pre>
    </>
  );
}
