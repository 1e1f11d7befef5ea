import { useId } from 'react';
import { useStore } from 'zustand';
import {
  CAPTION_MAX,
  extensionOf,
  formatFileSize,
  takesCaption,
} from '../../../../shared/media-rules.ts';
import type { MediaType } from '../../../../shared/schemas/media.ts';
import { errorAria, errorId } from '../../components/field-error.tsx';
import { CloseIcon, FileIcon } from '../../components/icons.tsx';
import {
  removeAttachment,
  setCaption,
  type Attachment,
  type AttachmentStore,
} from './attachments.ts';
import './composer-attachments.css';

const KIND_WORD: Record<MediaType, string> = {
  image: 'Photo',
  video: 'Video',
  audio: 'Audio',
  document: 'Document',
  sticker: 'Sticker',
};

/** What the card says a file is: "Photo", "PDF document", "MP3 audio"; "SVG file" when unsendable. */
function typeWords(item: Attachment): string {
  const ext = extensionOf(item.name).toUpperCase();
  if (!item.kind) return ext ? `${ext} file` : 'File';
  if (item.kind === 'document' || item.kind === 'audio') {
    return ext ? `${ext} ${KIND_WORD[item.kind].toLowerCase()}` : KIND_WORD[item.kind];
  }
  return KIND_WORD[item.kind];
}

const NO_CAPTION: Partial<Record<MediaType, string>> = {
  audio: 'Sent without a caption: WhatsApp sends audio and voice notes as they are.',
  sticker: 'Sent without a caption: WhatsApp sends stickers as they are.',
};

/** How much of a file has gone up, as a bar and a percentage, and Cancel to stop it. */
function UploadProgress({ item, onCancel }: { item: Attachment; onCancel: () => void }) {
  const percent = Math.round(item.progress * 100);
  const sent = formatFileSize(Math.round(item.progress * item.size));
  return (
    <span className="attach-progress" data-testid="attachment-uploading">
      <span
        className="attach-bar"
        role="progressbar"
        aria-label={`Uploading ${item.name}`}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        aria-valuetext={`${percent}% (${sent} of ${formatFileSize(item.size)})`}
        data-testid="attachment-progress"
      >
        <span className="attach-bar-fill" style={{ width: `${percent}%` }} />
      </span>
      <span className="attach-percent" aria-hidden="true" data-testid="attachment-percent">
        {percent}%
      </span>
      <button
        type="button"
        className="link-button attach-upload-cancel"
        aria-label={`Cancel the upload of ${item.name}`}
        onClick={onCancel}
        data-testid="attachment-upload-cancel"
      >
        Cancel
      </button>
    </span>
  );
}

function AttachmentCard({
  store,
  item,
  locked,
  onCancel,
}: {
  store: AttachmentStore;
  item: Attachment;
  /** A send is under way: the draft holds still. */
  locked: boolean;
  /** Stops the send under way (this file's upload, and the files after it). */
  onCancel: () => void;
}) {
  const captionId = useId();
  const problem = item.refused ?? item.error ?? undefined;
  const problemId = errorId(captionId);
  const captioned = item.kind !== null && takesCaption(item.kind) && !item.refused;
  return (
    <li
      className={`attach-card${item.refused ? ' attach-card-refused' : ''}`}
      data-testid="attachment-preview"
      data-attachment={item.key}
      data-kind={item.kind ?? 'unsupported'}
      data-phase={item.phase}
    >
      {item.thumbnail ? (
        <img className="attach-thumb" src={item.thumbnail} alt="" data-testid="attachment-thumb" />
      ) : (
        <span className="attach-file-icon" aria-hidden="true">
          <FileIcon />
        </span>
      )}
      <div className="attach-body">
        <div className="attach-head">
          <span className="attach-name" title={item.name} data-testid="attachment-name">
            {item.name}
          </span>
          <button
            type="button"
            className="icon-button attach-remove"
            aria-label={`Remove ${item.name}`}
            aria-describedby={problem ? problemId : undefined}
            title="Remove"
            disabled={locked}
            onClick={() => removeAttachment(store, item.key)}
            data-testid="attachment-remove"
          >
            <CloseIcon />
          </button>
        </div>
        <span className="attach-meta" data-testid="attachment-meta">
          {typeWords(item)} · {formatFileSize(item.size)}
        </span>
        {captioned ? (
          <input
            id={captionId}
            className="input attach-caption"
            type="text"
            value={item.caption}
            maxLength={CAPTION_MAX}
            placeholder="Add a caption (optional)"
            aria-label={`Caption for ${item.name}`}
            disabled={locked}
            onChange={(event) => setCaption(store, item.key, event.target.value)}
            {...errorAria(captionId, problem)}
            data-testid="attachment-caption"
          />
        ) : item.kind && !item.refused ? (
          <span className="attach-note">{NO_CAPTION[item.kind]}</span>
        ) : null}
        {item.phase === 'uploading' ? (
          <UploadProgress item={item} onCancel={onCancel} />
        ) : item.phase === 'sending' ? (
          <span className="attach-progress">Sending…</span>
        ) : null}
        {problem ? (
          <p
            id={problemId}
            className="field-error attach-error"
            role="alert"
            data-testid="attachment-error"
          >
            {problem}
          </p>
        ) : null}
      </div>
    </li>
  );
}

/**
 * The files a reply will carry, before it is sent: a thumbnail for photos and stickers, a card
 * for the rest, a caption where WhatsApp takes one, and what is wrong with a file WhatsApp will
 * not take. While a send runs it says which file is on its way, and Cancel stops there.
 */
export function AttachmentTray({
  store,
  busy,
  onCancel,
}: {
  store: AttachmentStore;
  busy: boolean;
  onCancel: () => void;
}) {
  const items = useStore(store, (s) => s.items);
  if (items.length === 0) return null;
  const current = items.findIndex((i) => i.phase !== 'ready');
  const moving = current >= 0 ? items[current]! : null;
  const count = `${items.length} ${items.length === 1 ? 'file' : 'files'}`;
  return (
    <section
      className="attach-tray"
      aria-label="Attachments"
      aria-busy={busy}
      data-testid="attachment-tray"
    >
      <div className="attach-tray-head">
        <span role="status" className="attach-status" data-testid="attachment-status">
          {moving
            ? `${moving.phase === 'uploading' ? 'Uploading' : 'Sending'} ${moving.name}${
                items.length > 1 ? ` (${current + 1} of ${items.length})` : ''
              }…`
            : items.length > 1
              ? `${count} · each is sent as its own message`
              : count}
        </span>
        {/* While a file goes up its card has the Cancel; one button per action, not two. */}
        {busy && moving?.phase !== 'uploading' ? (
          <button
            type="button"
            className="button button-small"
            onClick={onCancel}
            data-testid="attachment-cancel"
          >
            Cancel
          </button>
        ) : null}
      </div>
      <ul className="attach-list">
        {items.map((item) => (
          <AttachmentCard
            key={item.key}
            store={store}
            item={item}
            locked={busy}
            onCancel={onCancel}
          />
        ))}
      </ul>
    </section>
  );
}
