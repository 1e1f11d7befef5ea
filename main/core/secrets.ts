/**
 * Secrets at rest (README "Data, backups and security"): provider secrets are stored sealed with AES-256-GCM under a
 * 256-bit data key that never enters the database (so never a backup either). The key comes
 * from a key provider: the desktop's OS keychain (Electron `safeStorage`, handed in by the shell)
 * or `data-dir/secret.key` (0600). A stored value reads `sealed:v1:` + base64url(iv | ciphertext
 * | tag); the associated data names its table and column, so a sealed value moved to another
 * column does not open. Repos seal on write and unseal on read: services see plaintext.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { privateFile } from './files.ts';

export const SECRET_KEY_FILE = 'secret.key';
const PREFIX = 'sealed:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/** Every sealed column, with its table's key columns (the start-up sealing step walks these). */
export const SEALED_COLUMNS = [
  { table: 'channel_settings', keys: ['business_account_id'], column: 'access_token' },
  { table: 'channel_settings', keys: ['business_account_id'], column: 'app_secret' },
  { table: 'email_settings', keys: ['workspace_id', 'environment'], column: 'smtp_password' },
  { table: 'email_settings', keys: ['workspace_id', 'environment'], column: 'dkim_private_key' },
  { table: 'email_settings', keys: ['workspace_id', 'environment'], column: 'link_key' },
] as const;
export type SealedColumn =
  `${(typeof SEALED_COLUMNS)[number]['table']}.${(typeof SEALED_COLUMNS)[number]['column']}`;

/** What a settings screen says when a saved secret does not open with this machine's key. */
export const UNSEALABLE_MESSAGE =
  'the saved secret could not be unsealed on this machine (a backup restored elsewhere, or a new data key): enter it again';

export class DataKeyUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DataKeyUnavailable';
  }
}

/** Where the data key lives. */
export interface KeyProvider {
  /** For the log and the settings: "secret.key" or "the OS keychain". */
  readonly where: string;
  /** The 256-bit data key, created on first need; throws DataKeyUnavailable when it cannot be had. */
  dataKey(): Buffer;
}

/** The subset of Electron's `safeStorage` the keychain provider uses (the core never imports electron). */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

/** The key file's content, the file created (once, atomically, 0600) when absent. */
function keyFileContent(file: string, make: () => string): string {
  privateFile.createOnce(file, make);
  return fs.readFileSync(file, 'utf8').trim();
}

const FILE_KEY = /^parley-data-key:v1:file:([A-Za-z0-9_-]{43})$/;
const KEYCHAIN_KEY = /^parley-data-key:v1:keychain:([A-Za-z0-9_-]+=*)$/;

/**
 * The key in `data-dir/secret.key` (0600), 32 random bytes base64url. The key is made with the
 * system's CSPRNG, never the injectable Random: a seeded one would repeat keys and IVs.
 */
export function fileKeyProvider(dataDir: string): KeyProvider {
  const file = path.join(dataDir, SECRET_KEY_FILE);
  let key: Buffer | null = null;
  return {
    where: SECRET_KEY_FILE,
    dataKey() {
      if (key) return key;
      const text = keyFileContent(
        file,
        () => `parley-data-key:v1:file:${randomBytes(KEY_BYTES).toString('base64url')}\n`,
      );
      const m = FILE_KEY.exec(text);
      if (!m) {
        throw new DataKeyUnavailable(
          KEYCHAIN_KEY.test(text)
            ? `${file} holds a data key wrapped by the desktop app's OS keychain; only the desktop app can open it`
            : `${file} is not a Parley data key`,
        );
      }
      key = Buffer.from(m[1]!, 'base64url');
      return key;
    },
  };
}

/**
 * The desktop's provider: the data key wrapped by the OS keychain (Electron `safeStorage`) and
 * kept, wrapped, in `secret.key`. Without keychain encryption (some Linux desktops) it falls back
 * to the plain key file.
 */
export function keychainKeyProvider(dataDir: string, safeStorage: SafeStorageLike): KeyProvider {
  if (!safeStorage.isEncryptionAvailable()) return fileKeyProvider(dataDir);
  const file = path.join(dataDir, SECRET_KEY_FILE);
  let key: Buffer | null = null;
  let where = 'the OS keychain';
  return {
    get where() {
      return where;
    },
    dataKey() {
      if (key) return key;
      const text = keyFileContent(file, () => {
        const wrapped = safeStorage.encryptString(randomBytes(KEY_BYTES).toString('base64url'));
        return `parley-data-key:v1:keychain:${wrapped.toString('base64')}\n`;
      });
      const m = KEYCHAIN_KEY.exec(text);
      // A key file made while the keychain offered no encryption stays in use.
      if (!m) where = SECRET_KEY_FILE;
      const plain = m
        ? safeStorage.decryptString(Buffer.from(m[1]!, 'base64'))
        : FILE_KEY.exec(text)?.[1];
      if (!plain) throw new DataKeyUnavailable(`${file} is not a Parley data key`);
      key = Buffer.from(plain, 'base64url');
      return key;
    },
  };
}

/** A key held in memory (tests). */
export const fixedKeyProvider = (key: Buffer): KeyProvider => ({
  where: 'memory',
  dataKey: () => key,
});

export type Unsealed = { ok: true; value: string } | { ok: false };

export interface Sealer {
  readonly where: string;
  seal(column: SealedColumn, plaintext: string): string;
  sealOrNull(column: SealedColumn, plaintext: string | null): string | null;
  /** A value stored before sealing existed (plaintext) reads as itself. */
  unseal(column: SealedColumn, stored: string): Unsealed;
}

/** Opened values kept per process: a sealed value is unique (its IV is random), so it is its key. */
const OPENED_MAX = 256;

export function createSealer(provider: KeyProvider): Sealer {
  const opened = new Map<string, string>();
  const aad = (column: SealedColumn) => Buffer.from(`parley:${column}`);
  const seal = (column: SealedColumn, plaintext: string) => {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', provider.dataKey(), iv);
    cipher.setAAD(aad(column));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  };
  return {
    get where() {
      return provider.where;
    },
    seal,
    sealOrNull: (column, plaintext) => (plaintext === null ? null : seal(column, plaintext)),
    unseal(column, stored) {
      if (!stored.startsWith(PREFIX)) return { ok: true, value: stored };
      // Live sends and Meta's webhooks read the channel's secrets each time: decrypt once.
      const cacheKey = `${column} ${stored}`;
      const known = opened.get(cacheKey);
      if (known !== undefined) return { ok: true, value: known };
      const raw = Buffer.from(stored.slice(PREFIX.length), 'base64url');
      if (raw.length < IV_BYTES + TAG_BYTES) return { ok: false };
      try {
        const decipher = createDecipheriv(
          'aes-256-gcm',
          provider.dataKey(),
          raw.subarray(0, IV_BYTES),
        );
        decipher.setAAD(aad(column));
        decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
        const plain = Buffer.concat([
          decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
          decipher.final(),
        ]);
        const value = plain.toString('utf8');
        if (opened.size >= OPENED_MAX) opened.clear();
        opened.set(cacheKey, value);
        return { ok: true, value };
      } catch {
        // Another machine's key (a restored backup), a replaced key, or a value moved here
        // from another column: the secret is lost to this machine, not a crash.
        return { ok: false };
      }
    },
  };
}

/** For repos built without the data key (they must not touch secrets). */
export const noSealer: Sealer = {
  where: 'none',
  seal: () => {
    throw new Error('this repo was built without the data key');
  },
  sealOrNull: () => {
    throw new Error('this repo was built without the data key');
  },
  unseal: () => {
    throw new Error('this repo was built without the data key');
  },
};

/**
 * Opens a row's sealed columns: a value that does not open reads as null and its column is
 * listed in `unsealable` (the settings then ask for it again).
 */
export function openSealed<T extends object>(
  sealer: Sealer,
  table: string,
  row: T,
  columns: readonly (keyof T & string)[],
): T & { unsealable: string[] } {
  const out = { ...row, unsealable: [] as string[] };
  for (const c of columns) {
    const v = row[c];
    if (typeof v !== 'string') continue;
    const opened = sealer.unseal(`${table}.${c}` as SealedColumn, v);
    if (opened.ok) (out as Record<string, unknown>)[c] = opened.value;
    else {
      (out as Record<string, unknown>)[c] = null;
      out.unsealable.push(c);
    }
  }
  return out;
}
