import { describe, expect, it } from 'vitest';
import {
  ATTACH_ACCEPT,
  attachmentKind,
  checkAttachment,
  contentsReason,
  extensionOf,
  formatFileSize,
  mimeOfExtension,
  sentFileName,
  takesCaption,
  tooLargeReason,
} from '../../shared/media-rules.ts';
import { MEDIA_LIMITS, SENDABLE_MIME_TYPES } from '../../shared/schemas/media.ts';

const MB = 1024 * 1024;

describe('what a file is sent as', () => {
  it('takes the declared type when WhatsApp takes it, else the extension', () => {
    expect(attachmentKind({ name: 'parcel.jpg', type: 'image/jpeg' })).toEqual({
      kind: 'image',
      mimeType: 'image/jpeg',
    });
    // A system that names no type (or a generic one) leaves the name to decide.
    expect(attachmentKind({ name: 'Voice 001.AMR', type: '' })).toEqual({
      kind: 'audio',
      mimeType: 'audio/amr',
    });
    expect(attachmentKind({ name: 'label.pdf', type: 'application/octet-stream' })).toEqual({
      kind: 'document',
      mimeType: 'application/pdf',
    });
    expect(attachmentKind({ name: 'old.doc', type: '' })?.kind).toBe('document');
  });

  it('knows browsers’ other names for the same types', () => {
    expect(attachmentKind({ name: 'a.m4a', type: 'audio/x-m4a' })).toEqual({
      kind: 'audio',
      mimeType: 'audio/mp4',
    });
    expect(attachmentKind({ name: 'a', type: 'audio/mp3' })?.mimeType).toBe('audio/mpeg');
    expect(attachmentKind({ name: 'a', type: 'image/jpg' })?.kind).toBe('image');
    expect(attachmentKind({ name: 'a', type: 'audio/ogg; codecs=opus' })?.kind).toBe('audio');
  });

  it('sends WebP images as stickers, and MP4 as video', () => {
    expect(attachmentKind({ name: 'smile.webp', type: 'image/webp' })?.kind).toBe('sticker');
    expect(attachmentKind({ name: 'clip.mp4', type: 'video/mp4' })?.kind).toBe('video');
  });

  it('names nothing WhatsApp does not take', () => {
    expect(attachmentKind({ name: 'logo.svg', type: 'image/svg+xml' })).toBeNull();
    expect(attachmentKind({ name: 'anim.gif', type: 'image/gif' })).toBeNull();
    expect(attachmentKind({ name: 'setup.exe', type: 'application/x-msdownload' })).toBeNull();
    expect(attachmentKind({ name: 'noext', type: '' })).toBeNull();
  });

  it('offers every sendable type and extension in the file picker', () => {
    for (const mime of Object.values(SENDABLE_MIME_TYPES).flat()) {
      expect(ATTACH_ACCEPT.split(',')).toContain(mime);
    }
    expect(ATTACH_ACCEPT.split(',')).toEqual(expect.arrayContaining(['.pdf', '.jpg', '.opus']));
  });

  it('reads an extension from a name', () => {
    expect(extensionOf('Invoice 17.PDF')).toBe('pdf');
    expect(extensionOf('archive.tar.gz')).toBe('gz');
    expect(extensionOf('README')).toBe('');
    expect(extensionOf('.bashrc ')).toBe('bashrc');
    expect(mimeOfExtension('Old Budget.XLS')).toBe('application/vnd.ms-excel');
    expect(mimeOfExtension('logo.svg')).toBeNull();
  });
});

describe('whether a file may be attached', () => {
  it('allows a file WhatsApp takes within its kind’s limit', () => {
    expect(checkAttachment({ name: 'p.png', type: 'image/png', size: 5 * MB })).toEqual({
      ok: true,
      kind: 'image',
      mimeType: 'image/png',
    });
    expect(checkAttachment({ name: 'manual.pdf', type: '', size: 99 * MB }).ok).toBe(true);
  });

  it('says in plain words that a file is over its limit, and by how much', () => {
    const check = checkAttachment({ name: 'p.jpg', type: 'image/jpeg', size: 7.2 * MB });
    expect(check).toEqual({
      ok: false,
      kind: 'image',
      reason: 'Photos can be up to 5 MB; this one is 7.2 MB.',
    });
    expect(checkAttachment({ name: 'v.mp4', type: 'video/mp4', size: 20 * MB })).toMatchObject({
      ok: false,
      reason: 'Videos can be up to 16 MB; this one is 20 MB.',
    });
  });

  it('never says a file over its limit is as large as the limit', () => {
    const check = checkAttachment({ name: 'p.png', type: 'image/png', size: 5 * MB + 10 });
    expect(check.ok).toBe(false);
    expect(!check.ok && check.reason).toBe('Photos can be up to 5 MB; this one is just over 5 MB.');
  });

  it('tells a large WebP that it would be a sticker, and what to do', () => {
    const check = checkAttachment({ name: 'photo.webp', type: 'image/webp', size: 900 * 1024 });
    expect(!check.ok && check.reason).toBe(
      'Stickers (WebP images) can be up to 500 KB; this one is 900 KB. WhatsApp sends WebP images as stickers: save it as a JPEG or PNG.',
    );
  });

  it('names the type it cannot send, and what it can', () => {
    const svg = checkAttachment({ name: 'logo.svg', type: 'image/svg+xml', size: 2000 });
    expect(svg.ok).toBe(false);
    expect(!svg.ok && svg.reason).toMatch(/^WhatsApp can’t send \.svg files\. WhatsApp takes JPEG/);
    const unnamed = checkAttachment({ name: 'blob', type: 'text/html', size: 10 });
    expect(!unnamed.ok && unnamed.reason).toMatch(
      /^WhatsApp can’t send this kind of file \(text\/html\)\./,
    );
  });

  it('says what a file really is when the core’s sniffing refused it', () => {
    expect(contentsReason('image/gif')).toMatch(
      /^WhatsApp can’t send this file: its contents are image\/gif, whatever its name says\. WhatsApp takes/,
    );
    expect(contentsReason(null)).toMatch(/its contents are not a type it takes, whatever/);
  });

  it('refuses an empty file', () => {
    expect(checkAttachment({ name: 'a.txt', type: 'text/plain', size: 0 })).toEqual({
      ok: false,
      kind: 'document',
      reason: 'This file is empty.',
    });
  });

  it('words a limit the core answered with for its kind, or for the file’s type', () => {
    expect(tooLargeReason('audio', 17 * MB, MEDIA_LIMITS.audio)).toBe(
      'Audio files can be up to 16 MB; this one is 17 MB.',
    );
    expect(tooLargeReason('document', 6 * MB, 5 * MB)).toBe(
      'Files of this type can be up to 5 MB; this one is 6 MB.',
    );
  });
});

describe('sizes, captions and names', () => {
  it('formats sizes as people read them', () => {
    expect(formatFileSize(0)).toBe('0 bytes');
    expect(formatFileSize(1)).toBe('1 byte');
    expect(formatFileSize(812)).toBe('812 bytes');
    expect(formatFileSize(1536)).toBe('1.5 KB');
    expect(formatFileSize(500 * 1024)).toBe('500 KB');
    expect(formatFileSize(1024 * 1024 - 1)).toBe('1 MB');
    expect(formatFileSize(7.25 * MB)).toBe('7.3 MB');
    expect(formatFileSize(100 * MB)).toBe('100 MB');
    expect(formatFileSize(2.5 * 1024 * MB)).toBe('2.5 GB');
  });

  it('captions photos, videos and documents, not audio or stickers', () => {
    expect(takesCaption('image')).toBe(true);
    expect(takesCaption('video')).toBe(true);
    expect(takesCaption('document')).toBe(true);
    expect(takesCaption('audio')).toBe(false);
    expect(takesCaption('sticker')).toBe(false);
  });

  it('sends a file name with documents only, shortened to what the API takes', () => {
    expect(sentFileName('image', 'p.png')).toBeUndefined();
    expect(sentFileName('document', ' invoice-17.pdf ')).toBe('invoice-17.pdf');
    const long = sentFileName('document', `${'x'.repeat(300)}.pdf`)!;
    expect(long).toHaveLength(240);
    expect(long.endsWith('….pdf')).toBe(true);
  });
});
