import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { downloadUrl, useMediaLink } from '../../stores/media-links.ts';
import { ChatText } from '../chat-text.tsx';
import { CloseIcon } from '../icons.tsx';
import { ChevronIcon, DownloadIcon } from './media-icons.tsx';
import { imageAlt, type MediaMessage } from './message-media.tsx';
import './media.css';

/** Zoom steps: 1 fits the photo to the window. */
const ZOOMS = [1, 1.5, 2, 3, 4] as const;

interface ViewerButtonProps {
  /** Its name, and the key that does the same (shown in its title). */
  label: string;
  shortcut: string;
  onClick: () => void;
  disabled?: boolean;
  className: string;
  testId: string;
  children: ReactNode;
}

function ViewerButton({
  label,
  shortcut,
  className,
  testId,
  children,
  ...rest
}: ViewerButtonProps) {
  return (
    <button
      type="button"
      className={className}
      aria-label={label}
      title={`${label} (${shortcut})`}
      data-testid={testId}
      {...rest}
    >
      {children}
    </button>
  );
}

interface ImageViewerProps {
  /** The conversation's loaded photos, oldest first. */
  images: readonly MediaMessage[];
  /** The photo to show first. */
  startId: string;
  /** Who sent a photo ("Ana Lima", "Bot"). */
  authorOf: (message: MediaMessage) => string;
  onClose: () => void;
}

/**
 * A photo at full size: zoom, the conversation's other loaded photos with ←/→, download.
 * Escape closes it (the native dialog's cancel), and focus returns to the thread.
 */
export function ImageViewer({ images, startId, authorOf, onClose }: ImageViewerProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [currentId, setCurrentId] = useState(startId);
  const [zoom, setZoom] = useState(0);
  const index = Math.max(
    0,
    images.findIndex((m) => m.id === currentId),
  );
  const current = images[index];
  const { url } = useMediaLink(current?.media.id ?? null);

  useEffect(() => {
    const dialog = ref.current;
    const opener = document.activeElement as HTMLElement | null;
    if (dialog && !dialog.open) dialog.showModal();
    return () => {
      dialog?.close();
      opener?.focus();
    };
  }, []);

  const step = (by: number) => {
    const next = images[index + by];
    if (!next) return;
    setCurrentId(next.id);
    setZoom(0);
  };
  const zoomBy = (by: number) => setZoom((z) => Math.min(ZOOMS.length - 1, Math.max(0, z + by)));

  // On the document: a step button that turns disabled drops the focus out of the dialog.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
      // Zoomed in, the arrows move around the photo.
      if (zoom > 0 && event.key.startsWith('Arrow')) return;
      const action: Record<string, () => void> = {
        ArrowLeft: () => step(-1),
        ArrowRight: () => step(1),
        '+': () => zoomBy(1),
        '=': () => zoomBy(1),
        '-': () => zoomBy(-1),
        '0': () => setZoom(0),
      };
      const run = action[event.key];
      if (!run) return;
      event.preventDefault();
      run();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  });

  if (!current) return null;
  const author = authorOf(current);
  const alt = imageAlt(current, author);

  const scale = ZOOMS[zoom]!;
  return (
    <dialog
      ref={ref}
      className="dialog media-viewer"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      data-testid="media-viewer"
    >
      <header className="media-viewer-bar">
        <h2 id={titleId} className="media-viewer-title truncate">
          Photo {index + 1} of {images.length} · from {author}
        </h2>
        <div className="media-viewer-tools" role="toolbar" aria-label="Photo">
          <ViewerButton
            label="Zoom out"
            shortcut="−"
            className="button button-small"
            onClick={() => zoomBy(-1)}
            disabled={zoom === 0}
            testId="media-viewer-zoom-out"
          >
            −
          </ViewerButton>
          <ViewerButton
            label={`Zoom ${Math.round(scale * 100)}%: fit to the window`}
            shortcut="0"
            className="button button-small media-viewer-zoom"
            onClick={() => setZoom(0)}
            testId="media-viewer-zoom"
          >
            {scale === 1 ? 'Fit' : `${Math.round(scale * 100)}%`}
          </ViewerButton>
          <ViewerButton
            label="Zoom in"
            shortcut="+"
            className="button button-small"
            onClick={() => zoomBy(1)}
            disabled={zoom === ZOOMS.length - 1}
            testId="media-viewer-zoom-in"
          >
            +
          </ViewerButton>
          {url ? (
            <a
              className="button button-small"
              href={downloadUrl(url)}
              download={current.media.fileName ?? ''}
              aria-label="Download the photo"
              data-testid="media-viewer-download"
            >
              <DownloadIcon />
              Download
            </a>
          ) : null}
          <ViewerButton
            label="Close the photo"
            shortcut="Esc"
            className="icon-button media-viewer-close"
            onClick={onClose}
            testId="media-viewer-close"
          >
            <CloseIcon />
          </ViewerButton>
        </div>
      </header>
      <div className="media-viewer-stage">
        <ViewerButton
          label="Previous photo"
          shortcut="←"
          className="media-viewer-step media-viewer-prev"
          onClick={() => step(-1)}
          disabled={index === 0}
          testId="media-viewer-prev"
        >
          <ChevronIcon direction="left" />
        </ViewerButton>
        <div
          className={`media-viewer-frame${scale > 1 ? ' zoomed' : ''}`}
          tabIndex={scale > 1 ? 0 : -1}
          aria-label={scale > 1 ? 'Zoomed photo: scroll to move around' : undefined}
          role={scale > 1 ? 'region' : undefined}
        >
          {url ? (
            <img
              key={current.id}
              src={url}
              alt={alt}
              decoding="async"
              style={scale > 1 ? { width: `${scale * 100}%`, maxWidth: 'none' } : undefined}
              onDoubleClick={() => setZoom((z) => (z === 0 ? 2 : 0))}
              data-testid="media-viewer-image"
            />
          ) : (
            <p className="media-state">Loading the photo…</p>
          )}
        </div>
        <ViewerButton
          label="Next photo"
          shortcut="→"
          className="media-viewer-step media-viewer-next"
          onClick={() => step(1)}
          disabled={index === images.length - 1}
          testId="media-viewer-next"
        >
          <ChevronIcon direction="right" />
        </ViewerButton>
      </div>
      {current.media.caption?.trim() ? (
        <p className="media-viewer-caption">
          <ChatText text={current.media.caption} />
        </p>
      ) : null}
    </dialog>
  );
}
