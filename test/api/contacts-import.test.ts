import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Contact } from '../../shared/schemas/contacts.ts';
import type { TestCore } from '../helpers.ts';
import { makeCore } from '../helpers.ts';

let t: TestCore;
let key: string;
beforeEach(async () => {
  t = await makeCore();
  key = t.key();
});
afterEach(async () => t.close());

const fixture = (name: string) =>
  fs.readFileSync(new URL(`../fixtures/contacts/${name}`, import.meta.url));

/** Posts raw bytes, exactly as a file picker or `curl --data-binary @file` sends them. */
async function upload(body: Buffer | string, qs = '', headers: Record<string, string> = {}) {
  const res = await t.core.app.inject({
    method: 'POST',
    url: `/api/contacts/import${qs}`,
    headers: { 'x-api-key': key, 'content-type': 'text/csv', ...headers },
    payload: body,
  });
  return { status: res.statusCode, body: res.json(), text: res.body };
}

async function contacts(): Promise<Map<string, Contact>> {
  const res = await t.request('GET', '/api/contacts?limit=200', { key });
  return new Map((res.body.data as Contact[]).map((c) => [c.phone ?? '', c]));
}

const count = () => t.core.db.prepare('SELECT count(*) FROM contacts').pluck().get();

describe('CSV import of real exports', () => {
  it('imports a Google Contacts export: numbered phones (mobile first, several per cell), groups as labels', async () => {
    const res = await upload(fixture('google-contacts.csv'));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 5, created: 4, updated: 0, failed: 1 });
    expect(res.body.errors).toEqual([{ line: 6, reason: 'phone is required', param: 'phone' }]);
    const all = await contacts();
    expect(all.get('+34612345678')).toMatchObject({
      name: 'Ana García',
      email: 'ana.garcia@example.com',
      labels: ['vip'],
      attributes: { 'Organization 1 - Name': 'Acme Iberia', 'Organization 1 - Title': 'Buyer' },
    });
    // Phone 1 is a work landline, Phone 2 the mobile: the mobile is the WhatsApp number.
    expect(all.get('+14155552671')).toMatchObject({ name: 'Ben Okafor', email: 'ben@example.org' });
    // "06 12 34 56 78 ::: +33 6 12 34 56 78": the first valid number of the cell.
    expect(all.get('+33612345678')).toMatchObject({
      name: 'Chloé Martin',
      labels: ['starred', 'Paris office'],
      attributes: { Notes: 'met at the fair, "stand 4"' },
    });
    // No "Name": composed from the given and family names.
    expect(all.get('+819012345678')?.name).toBe('Daichi Sato');
    for (const c of all.values()) {
      expect(Object.keys(c.attributes)).not.toContain('Phone 1 - Type');
      expect(Object.keys(c.attributes)).not.toContain('E-mail 1 - Type');
    }
  });

  it('imports an Outlook export (UTF-8 with BOM): Mobile Phone before Business Phone, First/Middle/Last Name, Categories', async () => {
    const res = await upload(fixture('outlook.csv'));
    expect(res.body).toMatchObject({ total: 3, created: 3, failed: 0 });
    const all = await contacts();
    expect(all.get('+447911123456')).toMatchObject({
      name: 'Grace Hopper',
      email: 'grace.hopper@example.com',
      labels: ['Customers', 'VIP'],
      attributes: { 'Job Title': 'Rear Admiral', Company: 'Navy', 'Business City': 'Arlington' },
    });
    expect(all.get('+4915123456789')).toMatchObject({
      name: 'Hans Peter Müller',
      attributes: { Company: 'Müller & Söhne, Berlin' },
    });
    // No mobile: the business phone is the one there is.
    expect(all.get('+49891234567')).toMatchObject({
      name: 'Ines Ribeiro',
      attributes: { 'Home City': 'Lisboa' },
    });
    expect(all.get('+447911123456')?.attributes).not.toHaveProperty('Business Phone');
  });

  it('imports a ;-delimited European spreadsheet with German headers (decimal commas stay whole)', async () => {
    const res = await upload(fixture('european-semicolon.csv'));
    expect(res.body).toMatchObject({ total: 3, created: 3, failed: 0 });
    expect((await contacts()).get('+436641234567')).toMatchObject({
      name: 'Jana Novak',
      email: 'jana.novak@example.at',
      attributes: { Umsatz: '1.234,56', Firma: 'Novak, Wien' },
    });
  });

  it('imports a tab-separated export', async () => {
    const res = await upload(fixture('tab-separated.tsv'));
    expect(res.body).toMatchObject({ total: 2, created: 2, failed: 0 });
    expect((await contacts()).get('+61412345678')).toMatchObject({
      name: 'Noah Smith',
      email: 'noah@example.com.au',
      labels: ['lead', 'newsletter'],
      attributes: { City: 'Sydney' },
    });
  });

  it('imports Excel “Unicode Text” (UTF-16LE with BOM, tabs), full-width digits included', async () => {
    const res = await upload(fixture('excel-unicode-text.txt'));
    expect(res.body).toMatchObject({ total: 3, created: 2, failed: 1 });
    expect(res.body.errors).toEqual([
      {
        line: 4,
        reason:
          'phone "+999 1234 5678" is not a valid international number: unknown country code +999',
        param: 'phone',
      },
    ]);
    const all = await contacts();
    expect(all.get('+5511912345678')).toMatchObject({
      name: 'Paulo Souza',
      attributes: { Notes: 'São Paulo' },
    });
    expect(all.get('+4915112345678')?.name).toBe('Quynh Nguyen');
  });

  it('imports UTF-16BE with a BOM and honours an Excel sep= line (line numbers still match the file)', async () => {
    const text = 'sep=;\r\nphone;name\r\n+4915112345678;Ann\r\n+1415;Short\r\n';
    const be = Buffer.from(text, 'utf16le').swap16();
    const res = await upload(Buffer.concat([Buffer.from([0xfe, 0xff]), be]));
    expect(res.body).toMatchObject({ total: 2, created: 1, failed: 1 });
    expect(res.body.errors[0]).toMatchObject({ line: 4, param: 'phone' });
    expect(res.body.errors[0].reason).toMatch(/too short$/);
  });

  it('reads a file older Excel saved as Windows-1252 (not valid UTF-8) without garbling names', async () => {
    const latin1 = Buffer.from('Name;Mobile\r\nJos\xe9 Pe\xf1a;+34 612 34 56 78\r\n', 'latin1');
    const res = await upload(latin1, '?dryRun=true');
    expect(res.body).toMatchObject({ encoding: 'windows-1252', delimiter: ';', valid: 1 });
    await upload(latin1);
    expect((await contacts()).get('+34612345678')?.name).toBe('José Peña');
  });

  it('lists the columns it found when none holds a phone', async () => {
    const res = await upload('Full Name,E-mail Address,Company\nAnn,ann@example.com,Acme\n');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.param).toBe('phone');
    expect(res.body.error.message).toContain('"Full Name", "E-mail Address", "Company"');
    expect(res.body.error.message).toContain('map.phone');
    expect(res.body.error.details).toEqual({ columns: ['Full Name', 'E-mail Address', 'Company'] });
    expect(count()).toBe(0);
  });

  it('says why each phone was refused', async () => {
    const res = await upload(
      'phone,name\n+1415,A\n+491511234567890123,B\n+999123456789,C\nnot-a-phone,D\n4155552671,E\n',
    );
    expect(res.body.errors.map((e: { reason: string }) => e.reason)).toEqual([
      'phone "+1415" is not a valid international number: too short',
      'phone "+491511234567890123" is not a valid international number: too long',
      'phone "+999123456789" is not a valid international number: unknown country code +999',
      'phone "not-a-phone" is not a valid international number: not a number',
      expect.stringMatching(
        /^phone "4155552671" is not a valid international number: no country code/,
      ),
    ]);
  });
});

describe('column mapping and dry run', () => {
  it('previews a file without writing: encoding, delimiter, columns, the guessed mapping, first rows, counts', async () => {
    const res = await upload(fixture('excel-unicode-text.txt'), '?dryRun=true');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      dryRun: true,
      encoding: 'utf-16le',
      delimiter: '\t',
      columns: ['Name', 'Phone Number', 'Email', 'Notes'],
      guessed: true,
      mapping: {
        phone: ['Phone Number'],
        name: 'Name',
        firstName: null,
        email: 'Email',
        labels: null,
        skip: [],
      },
      total: 3,
      valid: 2,
      failed: 1,
    });
    expect(res.body.sample[0]).toMatchObject({
      line: 2,
      values: ['Paulo Souza', '+55 11 91234-5678', 'paulo@example.com.br', 'São Paulo'],
      // …and as the import would store it.
      phone: '+5511912345678',
      error: null,
      name: 'Paulo Souza',
      email: 'paulo@example.com.br',
    });
    expect(res.body.errors[0].line).toBe(4);
    expect(count()).toBe(0);

    const outlook = await upload(fixture('outlook.csv'), '?dryRun=true');
    expect(outlook.body.mapping).toMatchObject({
      firstName: 'First Name',
      middleName: 'Middle Name',
      lastName: 'Last Name',
      email: 'E-mail Address',
      labels: 'Categories',
    });
    // Every phone column is tried, a mobile first.
    expect(outlook.body.mapping.phone.slice(0, 3)).toEqual([
      'Mobile Phone',
      'Primary Phone',
      'Business Phone',
    ]);
    expect(outlook.body.mapping.phone).toContain('Home Phone');
    const google = await upload(fixture('google-contacts.csv'), '?dryRun=true');
    expect(google.body.mapping).toMatchObject({
      phone: ['Phone 1 - Value', 'Phone 2 - Value'],
      name: 'Name',
      email: 'E-mail 1 - Value',
      labels: 'Group Membership',
    });
    expect(google.body.mapping.skip).toEqual(
      expect.arrayContaining(['Phone 1 - Type', 'Phone 2 - Type', 'E-mail 1 - Type']),
    );
  });

  it('imports with the mapping the client chose instead of the guess', async () => {
    const qs =
      '?' +
      new URLSearchParams([
        ['map.phone', 'Business Phone'],
        ['map.firstName', 'First Name'],
        ['map.lastName', 'Last Name'],
        ['map.email', 'E-mail Address'],
        ['skip', 'Job Title'],
      ]).toString();
    const res = await upload(fixture('outlook.csv'), qs);
    expect(res.body).toMatchObject({ total: 3, created: 3, failed: 0 });
    const all = await contacts();
    // The business numbers, not the mobiles; no middle name; Categories are now an attribute.
    expect(all.get('+12125550199')).toMatchObject({
      name: 'Grace Hopper',
      labels: [],
      attributes: { Categories: 'Customers;VIP', 'Mobile Phone': '+44 7911 123456' },
    });
    expect(all.get('+12125550199')?.attributes).not.toHaveProperty('Job Title');
    expect(all.get('+493012345678')?.name).toBe('Hans Müller');
    expect(all.has('+447911123456')).toBe(false);
  });

  it('refuses a mapping that names a column the file does not have, listing the columns', async () => {
    const res = await upload('Handy,Name\n+4915112345678,Ann\n', '?map.phone=Mobile%20Phone');
    expect(res.status).toBe(400);
    expect(res.body.error.param).toBe('map.phone');
    expect(res.body.error.message).toBe(
      'the CSV has no column "Mobile Phone"; its columns are "Handy", "Name"',
    );
    const ok = await upload('Handy,Name\n+4915112345678,Ann\n', '?map.phone=handy&map.name=NAME');
    expect(ok.body).toMatchObject({ created: 1 });
  });

  it('refuses an empty file with 400', async () => {
    for (const body of ['', '\r\n']) {
      const res = await upload(body);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe('the CSV is empty');
    }
  });

  it('refuses a body that is not CSV with 415', async () => {
    const res = await t.request('POST', '/api/contacts/import', { key, body: { phone: '+1' } });
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('unsupported_media_type');
  });

  it('answers a file that declares more than 16 MiB with 413 before reading it', async () => {
    const res = await upload('phone\n+4915112345678\n', '', {
      'content-length': String(17 * 1024 * 1024),
    });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
    expect(count()).toBe(0);
  });
});

describe('NDJSON progress', () => {
  it('answers a file refused at its header with its status, and a later stop as an error line, writing nothing', async () => {
    const ndjson = { accept: 'application/x-ndjson' };
    const noPhone = await upload('name,city\nAnn,Berlin\n', '', ndjson);
    expect(noPhone.status).toBe(400);
    expect(noPhone.body.error.param).toBe('phone');

    const rows = Array.from(
      { length: 600 },
      (_, i) => `+4915112${String(i).padStart(6, '0')},P${i}`,
    );
    rows.push('+4915113000000,"unclosed');
    const res = await t.core.app.inject({
      method: 'POST',
      url: '/api/contacts/import',
      headers: { 'x-api-key': key, 'content-type': 'text/csv', ...ndjson },
      payload: ['phone,name', ...rows].join('\n') + '\n',
    });
    expect(res.statusCode).toBe(200);
    const lines = res.body
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            type: string;
            processed?: number;
            error?: { code: string; message: string };
          },
      );
    expect(lines.filter((l) => l.type === 'progress').map((l) => l.processed)).toEqual([0, 500]);
    expect(lines.at(-1)).toMatchObject({ type: 'error', error: { code: 'validation_error' } });
    expect(lines.at(-1)?.error?.message).toMatch(/malformed.*nothing was imported/);
    expect(count()).toBe(0);
  });
});

describe('phone in a query string', () => {
  it('hints at %2B when a + arrived as a space, on contacts and messages alike', async () => {
    await t.request('POST', '/api/contacts', { key, body: { phone: '+4915112345678' } });
    for (const path of ['/api/contacts', '/messages']) {
      const res = await t.request('GET', `${path}?phone=+4915112345678`, { key });
      expect(res.status, path).toBe(400);
      expect(res.body.error.param).toBe('phone');
      expect(res.body.error.message).toContain('a + in a query string must be sent as %2B');
      expect(res.body.error.message).toContain('?phone=%2B4915112345678');
      const ok = await t.request('GET', `${path}?phone=%2B4915112345678`, { key });
      expect(ok.status, path).toBe(200);
    }
    const bad = await t.request('GET', '/api/contacts?phone=%2B1415', { key });
    expect(bad.body.error.message).toMatch(/too short/);
  });
});

it('previews each sample row exactly as the import then stores it (Google: the mobile number first)', async () => {
  const preview = await upload(fixture('google-contacts.csv'), '?dryRun=true');
  expect(preview.status).toBe(200);
  const imported = await upload(fixture('google-contacts.csv'));
  expect(imported.status).toBe(200);
  for (const row of preview.body.sample as { phone: string | null; name: string | null }[]) {
    if (!row.phone) continue;
    const stored = await t.request('GET', `/api/contacts?phone=${encodeURIComponent(row.phone)}`, {
      key,
    });
    expect(stored.body.data[0]).toMatchObject({ phone: row.phone, name: row.name });
  }
});
