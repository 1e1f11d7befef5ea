import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { mayCarryToken } from '../../main/core/channel/cloud-api.ts';
import { samplesDir } from '../../main/core/media/samples.ts';
import { checkReceived, checkUpload, isInline, servedType } from '../../main/core/media/sniff.ts';
import { contentDisposition } from '../../main/core/modules/media/service.ts';
import { tempDir } from '../helpers.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
const file = (name: string, bytes: Buffer | string) => {
  const d = tempDir();
  dirs.push(d);
  const p = path.join(d, name);
  fs.writeFileSync(p, bytes);
  return p;
};
const sample = (name: string) => path.join(samplesDir(), name);

it('sends the access token only to Meta’s media hosts over HTTPS, or to the Graph URL’s own origin', () => {
  const graph = 'https://graph.facebook.com/v21.0';
  expect(
    mayCarryToken('https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=1', graph),
  ).toBe(true);
  expect(mayCarryToken('https://scontent.whatsapp.net/v/t61/x', graph)).toBe(true);
  expect(mayCarryToken('http://lookaside.fbsbx.com/x', graph)).toBe(false);
  expect(mayCarryToken('https://fbsbx.com.evil.example/x', graph)).toBe(false);
  expect(mayCarryToken('https://evil.example/x', graph)).toBe(false);
  expect(
    mayCarryToken(
      'http://127.0.0.1:9000/whatsapp_business/attachments/',
      'http://127.0.0.1:9000/v21.0',
    ),
  ).toBe(true);
  expect(mayCarryToken('http://127.0.0.1:9001/x', 'http://127.0.0.1:9000/v21.0')).toBe(false);
  expect(mayCarryToken('not a url', graph)).toBe(false);
});

it('names a download safely: an ASCII fallback and the real name (RFC 6266 / 8187)', () => {
  expect(contentDisposition('attachment', 'Rechnung März "final".pdf')).toBe(
    `attachment; filename="Rechnung M_rz _final_.pdf"; filename*=UTF-8''Rechnung%20M%C3%A4rz%20%22final%22.pdf`,
  );
  expect(contentDisposition('inline', "o'clock (1).png")).toBe(
    `inline; filename="o'clock (1).png"; filename*=UTF-8''o%27clock%20%281%29.png`,
  );
});

it('shows inline only raster images, audio and video; serves the rest as what is safe to download', () => {
  expect(isInline('image/png')).toBe(true);
  expect(isInline('audio/ogg')).toBe(true);
  expect(isInline('image/svg+xml')).toBe(false);
  expect(isInline('text/html')).toBe(false);
  expect(isInline('application/pdf')).toBe(false);
  expect(servedType('text/html')).toBe('application/octet-stream');
  expect(servedType('image/svg+xml')).toBe('application/octet-stream');
  expect(servedType('application/x-msdownload')).toBe('application/octet-stream');
  expect(servedType('application/pdf')).toBe('application/pdf');
});

it('checks a received file against its declared kind; a document may be anything', async () => {
  expect(await checkReceived(sample('photo.png'), 'image', 'image/jpeg')).toEqual({
    ok: true,
    mimeType: 'image/png',
  });
  expect(await checkReceived(sample('invoice.pdf'), 'image', 'image/jpeg')).toMatchObject({
    ok: false,
    reason: expect.stringMatching(/but the file is application\/pdf/),
  });
  expect(await checkReceived(sample('voice-note.ogg'), 'audio', null)).toEqual({
    ok: true,
    mimeType: 'audio/ogg',
  });
  expect(await checkReceived(sample('photo.png'), 'document', 'image/png')).toEqual({
    ok: true,
    mimeType: 'image/png',
  });
  const html = file('page.txt', '<!doctype html><script>alert(1)</script>');
  expect(await checkReceived(html, 'document', 'text/plain')).toEqual({
    ok: true,
    mimeType: 'application/octet-stream',
  });
  const text = file('notes.txt', 'Opening hours: 9–17\n');
  expect(await checkReceived(text, 'document', 'text/plain')).toEqual({
    ok: true,
    mimeType: 'text/plain',
  });
});

it('tells Office 97–2003 files apart by their name when uploaded', async () => {
  // A compound-file header (what .doc, .xls and .ppt share), padded to a sector.
  const cfb = Buffer.alloc(1024);
  Buffer.from('d0cf11e0a1b11ae1', 'hex').copy(cfb);
  const doc = file('x.bin', cfb);
  const opts = { declared: null, wanted: null };
  expect(await checkUpload(doc, { ...opts, fileName: 'letter.doc' })).toEqual({
    ok: true,
    kind: 'document',
    mimeType: 'application/msword',
  });
  expect(await checkUpload(doc, { ...opts, fileName: 'sheet.xls' })).toMatchObject({
    mimeType: 'application/vnd.ms-excel',
  });
  expect(await checkUpload(doc, { ...opts, fileName: 'blob' })).toMatchObject({ ok: false });
});
