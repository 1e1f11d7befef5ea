import { useState, type SyntheticEvent } from 'react';
import type { Message } from '../../../../shared/schemas/index.ts';
import type { MessageMedia as Media } from '../../../../shared/schemas/media.ts';
import { downloadUrl, useMediaLink } from '../../stores/media-links.ts';
import { retryMedia } from '../../stores/message-actions.ts';
import { notifyError } from '../../stores/toasts.ts';
import { fileTypeLabel, formatFileSize } from './file-facts.ts';
import { DownloadIcon, FileIcon } from './media-icons.tsx';
import { mediaKind } from './message-summary.ts';
import { mediaDurationMs, playLength, playLengthWords } from './play-length.ts';
import './media.css';

export type MediaMessage = Message & { media: Media };

export const hasMedia = (message: Message): message is MediaMessage => message.media !== null;

/** A photo's words for screen readers and for when it cannot load: its caption, else who sent it. */
export const imageAlt = (message: MediaMessage, author: string): string =>
  message.media.caption?.trim() || `${mediaKind(message) ?? 'Photo'} from ${author}`;

/** A file's kind as a sentence says it ("photo", "voice note"). */
const kindWord = (message: MediaMessage): string => (mediaKind(message) ?? 'file').toLowerCase();

/** While the file is fetched, when it could not be, or once retention has removed it. */
function MediaState({ message }: { message: MediaMessage }) {
  const [retried, setRetried] = useState<MediaMessage | null>(null);
  const { media } = message;
  const kind = kindWord(message);
  // Retried: shown as being fetched until a fresher copy of the message says how it went.
  if (media.status === 'pending' || retried === message) {
    return (
      <div className="media-state" role="status" data-testid="media-pending">
        Fetching {kind}…
      </div>
    );
  }
  if (media.status === 'expired') {
    return (
      <div className="media-state" data-testid="media-expired">
        This {kind} is no longer kept (past its retention period).
      </div>
    );
  }
  return (
    <div className="media-state media-state-failed" data-testid="media-failed">
      <span>
        Couldn’t fetch the {kind}
        {media.error ? ` (${media.error})` : ''} —{' '}
      </span>
      <button
        type="button"
        className="link-button"
        onClick={() => {
          setRetried(message);
          retryMedia(message).catch((e: unknown) => {
            setRetried(null);
            notifyError(e);
          });
        }}
        data-testid="media-retry"
      >
        Retry
      </button>
    </div>
  );
}

interface ShownProps {
  message: MediaMessage;
  /** Who sent it, for alt text and labels ("Ana Lima", "Bot"). */
  author: string;
  onOpenImage?: ((messageId: string) => void) | undefined;
}

/** A link could not be had (the core is unreachable): said in place of the file. */
function LinkTrouble({ error, kind }: { error: string; kind: string }) {
  return (
    <div className="media-state media-state-failed" role="note">
      The {kind} cannot be shown right now ({error}).
    </div>
  );
}

/**
 * A photo's thumbnail: a fixed box (so the thread does not jump when it loads), loaded lazily
 * and decoded off the main thread; it opens the viewer.
 */
function ImageThumb({ message, author, onOpenImage }: ShownProps) {
  const { url, error, renew } = useMediaLink(message.media.id);
  const [renewed, setRenewed] = useState(false);
  const alt = imageAlt(message, author);
  if (error && !url) return <LinkTrouble error={error} kind="photo" />;
  return (
    <button
      type="button"
      className="media-thumb"
      aria-label={`Open the photo: ${alt}`}
      onClick={() => onOpenImage?.(message.id)}
      disabled={!onOpenImage}
    >
      {url ? (
        <img
          src={url}
          alt={alt}
          loading="lazy"
          decoding="async"
          draggable={false}
          onError={() => {
            // A link made before the core restarted no longer opens: one new link, not a loop.
            if (!renewed) {
              setRenewed(true);
              renew();
            }
          }}
          data-testid="media-image"
        />
      ) : null}
    </button>
  );
}

/** A sticker: small, on the wallpaper, without a bubble. */
function Sticker({ message, author }: ShownProps) {
  const { url } = useMediaLink(message.media.id);
  return (
    <div className="media-sticker">
      {url ? (
        <img
          src={url}
          alt={`Sticker from ${author}`}
          loading="lazy"
          decoding="async"
          draggable={false}
          data-testid="media-sticker"
        />
      ) : null}
    </div>
  );
}

/**
 * A player's length: the core's `durationMs`, else what the element reads from the file's
 * metadata once it has it (a length the file does not state, as a live recording's, stays unknown).
 */
function usePlayLength(message: MediaMessage) {
  const known = mediaDurationMs(message.media);
  const [measured, setMeasured] = useState<number | null>(null);
  const onMetadata = (event: SyntheticEvent<HTMLMediaElement>) => {
    const seconds = event.currentTarget.duration;
    if (known === null && Number.isFinite(seconds) && seconds > 0) setMeasured(seconds * 1000);
  };
  return { known, ms: known ?? measured, onMetadata };
}

/**
 * A voice note or another audio file, with the browser's player and its length beside it, said
 * before it is played: nothing loads until then when the core knows the length, else only the
 * file's metadata.
 */
function AudioPlayer({ message, author }: ShownProps) {
  const { url, error } = useMediaLink(message.media.id);
  const { known, ms, onMetadata } = usePlayLength(message);
  const kind = mediaKind(message) ?? 'Audio';
  if (error && !url) return <LinkTrouble error={error} kind={kind.toLowerCase()} />;
  return (
    <div
      className="media-audio"
      role="group"
      aria-label={`${kind} from ${author}${ms === null ? '' : `, ${playLengthWords(ms)}`}`}
    >
      {url ? (
        <audio
          controls
          preload={known === null ? 'metadata' : 'none'}
          src={url}
          onLoadedMetadata={onMetadata}
          onDurationChange={onMetadata}
          data-testid="media-audio"
        />
      ) : null}
      {ms === null ? null : (
        <span className="media-duration" aria-hidden="true" data-testid="media-duration">
          {playLength(ms)}
        </span>
      )}
    </div>
  );
}

/** A video, with the browser's player; only its first frame and length load up front. */
function VideoPlayer({ message, author }: ShownProps) {
  const { url, error } = useMediaLink(message.media.id);
  const { ms, onMetadata } = usePlayLength(message);
  if (error && !url) return <LinkTrouble error={error} kind="video" />;
  return (
    <div
      className="media-video"
      role="group"
      aria-label={`Video from ${author}${ms === null ? '' : `, ${playLengthWords(ms)}`}`}
    >
      {url ? (
        <video
          controls
          preload="metadata"
          src={url}
          onLoadedMetadata={onMetadata}
          data-testid="media-video"
        />
      ) : null}
    </div>
  );
}

/** A document: its name, size and kind, to open or to download (the same bytes either way). */
function FileCard({ message }: ShownProps) {
  const { url, error } = useMediaLink(message.media.id);
  const { media } = message;
  const name = media.fileName?.trim() || 'Document';
  const label = fileTypeLabel(media.mimeType, media.fileName);
  const size = formatFileSize(media.size);
  return (
    <div className="media-file" data-testid="media-file">
      <span className="media-file-icon" aria-hidden="true">
        <FileIcon />
        <span className="media-file-type">{label}</span>
      </span>
      <span className="media-file-facts">
        <span className="media-file-name" title={name} data-testid="media-file-name">
          {name}
        </span>
        <span className="media-file-sub">
          {label}
          {size ? ` · ${size}` : ''}
        </span>
      </span>
      {url ? (
        <span className="media-file-actions">
          <a
            className="button button-small"
            href={url}
            target="_blank"
            rel="noopener noreferrer"
            aria-label={`Open ${name}`}
            data-testid="media-file-open"
          >
            Open
          </a>
          <a
            className="button button-small"
            href={downloadUrl(url)}
            download={name}
            aria-label={`Download ${name}`}
            data-testid="media-file-download"
          >
            <DownloadIcon />
            Download
          </a>
        </span>
      ) : error ? (
        <span className="media-file-sub">Cannot be opened right now ({error})</span>
      ) : null}
    </div>
  );
}

/** A message's photo, voice note, video, document or sticker, in the state its file is in. */
export function MessageMedia(props: ShownProps) {
  const { message } = props;
  if (message.media.status !== 'ready') {
    return message.media.type === 'image' || message.media.type === 'video' ? (
      <div className="media-box">
        <MediaState message={message} />
      </div>
    ) : (
      <MediaState message={message} />
    );
  }
  switch (message.media.type) {
    case 'image':
      return <ImageThumb {...props} />;
    case 'sticker':
      return <Sticker {...props} />;
    case 'audio':
      return <AudioPlayer {...props} />;
    case 'video':
      return <VideoPlayer {...props} />;
    case 'document':
      return <FileCard {...props} />;
  }
}
