import { z } from 'zod';
import { isoDate } from './common.ts';

/** Settings → Team (design.md §6 "Serving a team"): whether this desk is shared on the LAN. */
export const teamStatusSchema = z.object({
  sharing: z.boolean().describe('the TLS listener other desktops join is up'),
  addresses: z.array(z.string()).describe('the https URLs other desktops reach this desk by'),
  fingerprint: z
    .string()
    .nullable()
    .describe('SHA-256 fingerprint of the certificate (`sha256:…`), as invite links pin it'),
  spki: z
    .string()
    .nullable()
    .describe('SHA-256 of the certificate’s public key (base64), for Chromium’s SPKI pin'),
  certificate: z
    .object({
      notBefore: isoDate,
      notAfter: isoDate,
      names: z.array(z.string()).describe('the names and addresses it is valid for'),
      selfSigned: z.boolean(),
      renewedFrom: z
        .string()
        .nullable()
        .describe('the fingerprint it replaced when this start renewed it'),
    })
    .nullable(),
  announce: z.boolean().describe('announced on the LAN (mDNS, `_parley._tcp`)'),
  port: z.number().int().nullable(),
});
export type TeamStatus = z.infer<typeof teamStatusSchema>;

export const shareTeamBody = z.object({
  enabled: z.boolean().describe('true: share (or change how); false: stop sharing'),
  announce: z.boolean().optional().describe('announce the desk on the LAN (mDNS)'),
  host: z.string().min(1).max(255).optional().describe('bind address (default 0.0.0.0)'),
  port: z.number().int().min(0).max(65535).optional().describe('TLS port (default 4780)'),
  certFile: z.string().min(1).max(4096).optional().describe('PEM certificate of your own'),
  keyFile: z.string().min(1).max(4096).optional().describe('PEM private key of your own'),
});
