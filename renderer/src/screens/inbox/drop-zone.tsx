import { useEffect, useRef, useState, type RefObject } from 'react';
import { PaperclipIcon } from '../../components/icons.tsx';

const carriesFiles = (event: DragEvent): boolean =>
  event.dataTransfer?.types.includes('Files') ?? false;

interface FileDrop {
  /** Files are being dragged over the area: where to draw the drop zone. */
  over: DOMRect | null;
}

/**
 * Files dragged onto the open conversation (the thread and its composer, the element `anchor`
 * sits in): `onFiles` takes what is dropped when `allowed`; otherwise the drop does nothing and
 * the zone says why. A drop anywhere else in the window is not the browser's to open either.
 */
export function useFileDrop(
  anchor: RefObject<HTMLElement | null>,
  allowed: boolean,
  onFiles: (files: File[]) => void,
): FileDrop {
  const [over, setOver] = useState<DOMRect | null>(null);
  const latest = useRef({ allowed, onFiles });
  useEffect(() => {
    latest.current = { allowed, onFiles };
  });

  useEffect(() => {
    const area = anchor.current?.closest<HTMLElement>('.inbox-thread') ?? anchor.current;
    if (!area) return;
    // dragenter and dragleave come in pairs for every element crossed: the zone is shown while
    // more have been entered than left.
    let depth = 0;
    const leave = () => {
      depth = 0;
      setOver(null);
    };
    const onEnter = (event: DragEvent) => {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      depth += 1;
      if (depth === 1) setOver(area.getBoundingClientRect());
    };
    const onOver = (event: DragEvent) => {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      if (event.dataTransfer)
        event.dataTransfer.dropEffect = latest.current.allowed ? 'copy' : 'none';
    };
    const onLeave = (event: DragEvent) => {
      if (!carriesFiles(event)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setOver(null);
    };
    const onDrop = (event: DragEvent) => {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      leave();
      const files = [...(event.dataTransfer?.files ?? [])];
      if (latest.current.allowed && files.length > 0) latest.current.onFiles(files);
    };
    // A file let go outside the conversation must not replace the page with it.
    const ignoreOutside = (event: DragEvent) => {
      if (!carriesFiles(event) || area.contains(event.target as Node)) return;
      event.preventDefault();
      if (event.dataTransfer) event.dataTransfer.dropEffect = 'none';
    };
    const listeners: [EventTarget, string, (event: DragEvent) => void][] = [
      [area, 'dragenter', onEnter],
      [area, 'dragover', onOver],
      [area, 'dragleave', onLeave],
      [area, 'drop', onDrop],
      [window, 'dragover', ignoreOutside],
      [window, 'drop', ignoreOutside],
      [window, 'dragend', leave],
    ];
    for (const [target, type, listener] of listeners) {
      target.addEventListener(type, listener as EventListener);
    }
    return () => {
      for (const [target, type, listener] of listeners) {
        target.removeEventListener(type, listener as EventListener);
      }
    };
  }, [anchor]);

  return { over };
}

/**
 * Where dropped files go: drawn over the whole conversation while files are dragged onto it,
 * saying what a drop does (or why it does nothing). It stays in the page, hidden, so a drop
 * aimed at it lands in the conversation either way.
 */
export function DropZone({ over, reason }: { over: DOMRect | null; reason: string | null }) {
  const title = reason ? 'Files can’t be attached here' : 'Drop files to attach them';
  const detail = reason ?? 'Photos, videos, audio and documents go with your reply.';
  return (
    <>
      <div
        className={`drop-zone${reason ? ' drop-zone-off' : ''}`}
        hidden={!over}
        style={
          over
            ? { top: over.top, left: over.left, width: over.width, height: over.height }
            : undefined
        }
        data-testid="drop-zone"
        data-allowed={!reason}
      >
        <div className="drop-zone-box" aria-hidden="true">
          <PaperclipIcon size={28} />
          <strong>{title}</strong>
          <span>{detail}</span>
        </div>
      </div>
      <span className="visually-hidden" role="status" data-testid="drop-zone-status">
        {over ? `${title}. ${detail}` : ''}
      </span>
    </>
  );
}
