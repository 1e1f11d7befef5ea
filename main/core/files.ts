/**
 * File modes of the data dir (README "Data, backups and security"): the folder 0700, every file Parley writes in it
 * 0600 — the database and its WAL/SHM, backups, secret.key, session.secret, serve.json, the team
 * desk's team.json, team-cert.pem and team-key.pem, and the media files in `media/`. Windows
 * has no such modes (its ACLs follow the user's profile folder): skipped there.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const POSIX = process.platform !== 'win32';

function tighten(file: string, mode: number): boolean {
  if (!POSIX) return false;
  const st = fs.lstatSync(file);
  if (st.isSymbolicLink() || (st.mode & 0o777 & ~mode) === 0) return false;
  try {
    fs.chmodSync(file, mode);
  } catch (e) {
    // Someone else's folder (a data dir pointed at a shared one): not ours to change.
    if ((e as NodeJS.ErrnoException).code === 'EPERM') return false;
    throw e;
  }
  return true;
}

export const privateDir = {
  /** Creates the folder (and missing parents) 0700; an existing one is tightened. */
  ensure(dir: string): void {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    tighten(dir, 0o700);
  },
};

export const privateFile = {
  /** Writes a file 0600 (a file that existed with looser modes is tightened too). */
  write(file: string, data: string): void {
    fs.writeFileSync(file, data, { mode: 0o600 });
    tighten(file, 0o600);
  },
  /**
   * Creates an empty file 0600 that must not exist yet (EEXIST otherwise): a file SQLite then
   * fills (a database, a `VACUUM INTO` copy) keeps that mode, where SQLite's own creation would
   * give it 0644 less the umask. SQLite gives a database's -wal and -shm its database's mode.
   */
  create(file: string): void {
    fs.closeSync(fs.openSync(file, 'wx', 0o600));
    tighten(file, 0o600);
  },
  tighten: (file: string): boolean => tighten(file, 0o600),
  /**
   * Creates a file 0600 once with `make()`'s content, unless it exists: written aside, then
   * linked into place, so a second process starting at the same moment either wins the link or
   * reads the complete file of the one that did, never a half-written one. Tightens it after.
   */
  createOnce(file: string, make: () => string): void {
    if (!fs.existsSync(file)) {
      const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
      privateFile.write(tmp, make());
      try {
        fs.linkSync(tmp, file);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      } finally {
        fs.rmSync(tmp, { force: true });
      }
    }
    tighten(file, 0o600);
  },
};

/** The files Parley writes at the top of a data dir. */
const DATA_DIR_FILES = [
  'parley.db',
  'parley.db-wal',
  'parley.db-shm',
  'parley.db-journal',
  'secret.key',
  'session.secret',
  'serve.json',
  'team.json',
  'team-cert.pem',
  'team-key.pem',
];

/**
 * Tightens a data dir written by an older Parley (0755 folders, 0644 files): the folder,
 * `backups/` and `media/` 0700, Parley's files in them 0600. Only Parley's own entries: a data dir pointed at
 * a shared folder does not get the rest of that folder changed. Returns how many changed.
 */
export function tightenDataDir(dataDir: string): number {
  if (!POSIX || !fs.existsSync(dataDir)) return 0;
  const backups = path.join(dataDir, 'backups');
  const media = path.join(dataDir, 'media');
  const inside = (dir: string) =>
    fs.existsSync(dir) ? fs.readdirSync(dir).map((f) => path.join(dir, f)) : [];
  const entries = [
    ...DATA_DIR_FILES.map((f) => path.join(dataDir, f)),
    ...inside(backups),
    ...inside(media),
  ];
  let changed = 0;
  for (const dir of [dataDir, backups, media]) {
    if (fs.existsSync(dir) && tighten(dir, 0o700)) changed += 1;
  }
  for (const file of entries) {
    if (fs.existsSync(file) && fs.lstatSync(file).isFile() && tighten(file, 0o600)) changed += 1;
  }
  return changed;
}
