// The desktop's list of desks (README "Working as a team"): its own solo desk, always first, and
// the team desks it joined by an invite link, each pinned to the certificate fingerprint the link
// carried. Kept free of electron imports, so the decisions are unit-tested on Node.
import fs from 'node:fs';
import path from 'node:path';
import { privateFile } from '../core/files.ts';
import { checkPin, normalizePin } from '../core/net/pin.ts';

export interface JoinedDesk {
  /** The desk's origin, `https://host:port`. */
  origin: string;
  /** What the switcher shows (the host name until the desk tells its workspace). */
  name: string;
  /** The pinned certificate fingerprint, `sha256:<64 hex>`. */
  fingerprint: string;
  joinedAt: string;
}

/** What an invite link says: where, with which one-use token, pinned to which certificate. */
export interface Invite {
  origin: string;
  token: string;
  fingerprint: string;
  /** The page that accepts it: `<origin>/join#token=…`. */
  joinUrl: string;
}

export class InviteLinkError extends Error {}

/**
 * Reads a pasted invite link: `https://HOST:PORT/join#token=…&fp=sha256:…`. A link without a
 * fingerprint is a solo desk's (or a browser's) and cannot be joined from the app: the answer
 * says so in words the person can act on.
 */
export function parseInvite(text: string): Invite {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new InviteLinkError('This is not a link: paste the whole invite link your admin sent.');
  }
  const params = new URLSearchParams(url.hash.replace(/^#/, ''));
  const token = params.get('token');
  const fp = params.get('fp');
  if (url.pathname !== '/join' || !token) {
    throw new InviteLinkError('This is not a Parley invite link (it should end in /join#token=…).');
  }
  if (url.protocol !== 'https:' || !fp) {
    throw new InviteLinkError(
      'This invite is for a desk on one computer, not shared on the network: ask your admin to share the desk (Settings → Team) and send a new invite.',
    );
  }
  let fingerprint: string;
  try {
    fingerprint = normalizePin(fp);
  } catch {
    throw new InviteLinkError('The invite link is cut short or changed: copy it again.');
  }
  return {
    origin: url.origin,
    token,
    fingerprint,
    joinUrl: `${url.origin}/join#token=${encodeURIComponent(token)}`,
  };
}

/** What the window does with a desk's certificate (Electron's certificate-verify hook). */
export type CertificateVerdict =
  /** A joined desk showing its pinned certificate: trusted, whatever its issuer. */
  | 'trust'
  /** A joined desk showing another certificate: refused, and the person told why. */
  | 'refuse'
  /** Not a joined desk: the browser engine's own verification decides. */
  | 'default';

export function certificateVerdict(
  desks: readonly JoinedDesk[],
  hostname: string,
  port: string,
  certDer: Uint8Array,
): CertificateVerdict {
  const matching = desks.filter((d) => {
    const u = new URL(d.origin);
    return u.hostname === hostname && (port === '' || (u.port || '443') === port);
  });
  if (matching.length === 0) return 'default';
  return matching.some((d) => checkPin(certDer, d.fingerprint) === 'ok') ? 'trust' : 'refuse';
}

/** The desks file in the data dir (0600): the joined desks, never a credential. */
export function deskStore(dataDir: string) {
  const file = path.join(dataDir, 'desks.json');
  const read = (): JoinedDesk[] => {
    try {
      const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
      return Array.isArray(parsed)
        ? (parsed as JoinedDesk[]).filter(
            (d) => typeof d?.origin === 'string' && typeof d.fingerprint === 'string',
          )
        : [];
    } catch {
      return [];
    }
  };
  const write = (desks: JoinedDesk[]) =>
    privateFile.write(file, `${JSON.stringify(desks, null, 2)}\n`);
  return {
    list: read,
    /** Joins (or re-pins, after its admin renewed the certificate) a desk. */
    save(invite: Invite, name: string, now: Date): JoinedDesk {
      const desk: JoinedDesk = {
        origin: invite.origin,
        name,
        fingerprint: invite.fingerprint,
        joinedAt: now.toISOString(),
      };
      write([...read().filter((d) => d.origin !== invite.origin), desk]);
      return desk;
    },
    remove(origin: string): void {
      write(read().filter((d) => d.origin !== origin));
    },
  };
}
export type DeskStore = ReturnType<typeof deskStore>;
