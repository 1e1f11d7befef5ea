/**
 * The files a reply carries before it is sent (README "Media, reactions and quotes"): checked
 * with the shared rule as they are added, previewed, captioned, then each uploaded (`POST
 * /media`) and sent as its own message. Kept per conversation, like the text drafts, so switching
 * conversations keeps them.
 */
import { createStore, type StoreApi } from 'zustand/vanilla';
import {
  checkAttachment,
  contentsReason,
  MAX_ATTACHMENTS,
  sentFileName,
  takesCaption,
  tooLargeReason,
} from '../../../../shared/media-rules.ts';
import { MEDIA_LIMITS, type MediaType } from '../../../../shared/schemas/media.ts';
import type { Message } from '../../../../shared/schemas/index.ts';
import { api, ApiRequestError, errorMessage, type ReplyBody } from '../../api/client.ts';

export interface Attachment {
  /** This draft's own key (a file has no id until it is uploaded). */
  key: string;
  file: File;
  name: string;
  size: number;
  /** What WhatsApp sends it as; null when it takes no such file. */
  kind: MediaType | null;
  mimeType: string | null;
  caption: string;
  /** A photo's or sticker's preview, as a data: URL (the window's CSP allows no blob: images). */
  thumbnail: string | null;
  /** The upload's id, once stored: sending again does not upload it again. */
  mediaId: string | null;
  phase: 'ready' | 'uploading' | 'sending';
  /** While uploading: the share of the file gone up (0…1), as the browser reports it. */
  progress: number;
  /** Why it cannot be sent as it is (the shared rule, or the core's answer), in plain words. */
  refused: string | null;
  /** Why its last upload failed (sending again tries again). */
  error: string | null;
}

export interface AttachmentsState {
  items: Attachment[];
}

export type AttachmentStore = StoreApi<AttachmentsState>;

const stores = new Map<string, AttachmentStore>();
let nextKey = 1;

/** The attachments of a conversation's reply draft. */
export function attachmentsFor(conversationId: string): AttachmentStore {
  let store = stores.get(conversationId);
  if (!store) {
    store = createStore<AttachmentsState>()(() => ({ items: [] }));
    stores.set(conversationId, store);
  }
  return store;
}

const update = (store: AttachmentStore, key: string, patch: Partial<Attachment>) =>
  store.setState((s) => ({
    items: s.items.map((item) => (item.key === key ? { ...item, ...patch } : item)),
  }));

export const removeAttachment = (store: AttachmentStore, key: string): void =>
  store.setState((s) => ({ items: s.items.filter((item) => item.key !== key) }));

export const clearAttachments = (store: AttachmentStore): void => store.setState({ items: [] });

export const setCaption = (store: AttachmentStore, key: string, caption: string): void =>
  update(store, key, { caption });

const readDataUrl = (file: Blob): Promise<string> =>
  new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read.'));
    reader.readAsDataURL(file);
  });

const sameFile = (a: File, b: File) =>
  a.name === b.name && a.size === b.size && a.lastModified === b.lastModified;

/**
 * Adds files to the draft, each checked with the shared rule (one WhatsApp does not take is
 * kept with its reason, so the agent sees which and why). Answers a problem with the whole
 * batch (too many files), or null.
 */
export function addFiles(store: AttachmentStore, files: readonly File[]): string | null {
  const { items } = store.getState();
  const fresh = files.filter((file) => !items.some((item) => sameFile(item.file, file)));
  const room = MAX_ATTACHMENTS - items.length;
  const taken = fresh.slice(0, Math.max(0, room));
  const added = taken.map((file): Attachment => {
    const check = checkAttachment(file);
    return {
      key: `att-${nextKey++}`,
      file,
      name: file.name || 'Pasted file',
      size: file.size,
      kind: check.kind,
      mimeType: check.ok ? check.mimeType : null,
      caption: '',
      thumbnail: null,
      mediaId: null,
      phase: 'ready',
      progress: 0,
      refused: check.ok ? null : check.reason,
      error: null,
    };
  });
  store.setState((s) => ({ items: [...s.items, ...added] }));
  for (const item of added) {
    if (item.refused || (item.kind !== 'image' && item.kind !== 'sticker')) continue;
    readDataUrl(item.file)
      .then((thumbnail) => update(store, item.key, { thumbnail }))
      .catch(() => {
        // No preview: the card still names the file.
      });
  }
  return taken.length < fresh.length
    ? `A reply can carry up to ${MAX_ATTACHMENTS} files; ${fresh.length - taken.length} of these ${
        fresh.length - taken.length === 1 ? 'was' : 'were'
      } not added. Send these first.`
    : null;
}

/** Files that came with a paste or a drop (not text, not links). */
export const filesOf = (data: DataTransfer | null): File[] => (data ? [...data.files] : []);

/** The core refused the file itself (415/413): why, in plain words; null for any other failure. */
function refusalOf(e: unknown, item: Attachment): string | null {
  if (!(e instanceof ApiRequestError)) return null;
  if (e.code === 'unsupported_media_type') {
    // The core names what the bytes are ("the file is image/gif, which …") or that it knows none.
    const sniffed = /^the file is ([\w.+-]+\/[\w.+-]+),/.exec(e.message)?.[1] ?? null;
    if (sniffed || e.message.includes('not a type WhatsApp takes')) return contentsReason(sniffed);
    return `WhatsApp can’t send this file: ${e.message.replace(/\.$/, '')}.`;
  }
  if (e.code === 'payload_too_large') {
    const limit = Number(e.details?.limitBytes);
    if (!Number.isFinite(limit) || limit <= 0) return `${e.message}.`;
    const kind =
      item.kind && MEDIA_LIMITS[item.kind] === limit
        ? item.kind
        : ((Object.keys(MEDIA_LIMITS) as MediaType[]).find((k) => MEDIA_LIMITS[k] === limit) ??
          item.kind ??
          'document');
    return tooLargeReason(kind, item.size, limit);
  }
  return null;
}

/** A failure already shown on its attachment's card. */
export class ShownOnCard extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShownOnCard';
  }
}

const aborted = () => new DOMException('The upload was cancelled.', 'AbortError');

/**
 * Uploads one attachment (unless it was already) and sends it as a reply based on a message;
 * it leaves the draft once sent. An upload failure is shown on its card (`ShownOnCard`); a
 * reply's failure (a conflict, the window closing) is the caller's to show.
 */
export async function sendAttachment(
  store: AttachmentStore,
  key: string,
  opts: {
    reply: (body: ReplyBody) => Promise<Message>;
    basedOnMessageId: string | undefined;
    signal: AbortSignal;
  },
): Promise<Message> {
  const item = store.getState().items.find((i) => i.key === key);
  if (!item || !item.kind) throw new Error('That attachment is no longer in the reply.');
  let mediaId = item.mediaId;
  if (!mediaId) {
    update(store, key, { phase: 'uploading', progress: 0, error: null });
    // One update per whole percent, however many progress events a large file makes.
    let shown = 0;
    const onProgress = (sent: number) => {
      const percent = Math.floor(sent * 100);
      if (percent === shown) return;
      shown = percent;
      update(store, key, { progress: percent / 100 });
    };
    try {
      mediaId = (await api.media.upload(item.file, item.name, opts.signal, onProgress)).id;
      update(store, key, { mediaId });
    } catch (e) {
      const refused = refusalOf(e, item);
      const cancelled = opts.signal.aborted;
      update(store, key, {
        phase: 'ready',
        ...(refused ? { refused } : { error: cancelled ? null : errorMessage(e) }),
      });
      throw cancelled ? aborted() : new ShownOnCard(refused ?? errorMessage(e));
    }
  }
  if (opts.signal.aborted) {
    update(store, key, { phase: 'ready' });
    throw aborted();
  }
  update(store, key, { phase: 'sending' });
  const caption = takesCaption(item.kind) ? item.caption.trim() : '';
  const fileName = sentFileName(item.kind, item.name);
  try {
    const message = await opts.reply({
      mediaId,
      ...(caption ? { caption } : {}),
      ...(fileName ? { fileName } : {}),
      ...(opts.basedOnMessageId ? { basedOnMessageId: opts.basedOnMessageId } : {}),
    });
    removeAttachment(store, key);
    return message;
  } catch (e) {
    // An upload that expired or is not this workspace's is made again on the next try.
    const gone =
      e instanceof ApiRequestError &&
      (e.param === 'mediaId' || (e.code === 'invalid_state' && e.status === 409));
    update(store, key, { phase: 'ready', ...(gone ? { mediaId: null } : {}) });
    throw e;
  }
}
