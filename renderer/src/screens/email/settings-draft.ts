/**
 * The email settings form's model: what is typed, the checks made before saving (the core has
 * the last word and names the field in `param`), and the body sent. The SMTP password and the
 * DKIM key are write-only: the form knows only whether one is saved, and sends one only when the
 * user gives a new one.
 */
import { EMAIL_LIMITS, isEmailAddress } from '../../../../shared/email-rules.ts';
import type { EmailSettings, EmailSettingsBody } from '../../stores/email-api.ts';

/** What happens to a saved secret: kept (not sent), replaced by the one typed, or removed. */
export type SecretMode = 'keep' | 'replace' | 'remove';

export interface SettingsDraft {
  smtpOn: boolean;
  host: string;
  port: string;
  secure: boolean;
  user: string;
  password: string;
  passwordMode: SecretMode;
  rate: string;
  publicUrl: string;
  dkimOn: boolean;
  dkimDomain: string;
  dkimSelector: string;
  dkimKey: string;
  dkimKeyMode: SecretMode;
  defaultFromEmail: string;
  defaultFromName: string;
}

/** The usual ports: 465 speaks TLS from the start, 587 upgrades with STARTTLS. */
export const SECURE_PORT = '465';
export const STARTTLS_PORT = '587';

export function settingsDraftOf(s: EmailSettings): SettingsDraft {
  return {
    smtpOn: s.smtp !== null,
    host: s.smtp?.host ?? '',
    port: String(s.smtp?.port ?? STARTTLS_PORT),
    secure: s.smtp?.secure ?? false,
    user: s.smtp?.user ?? '',
    password: '',
    passwordMode: 'keep',
    rate: String(s.ratePerSecond),
    publicUrl: s.publicUrl ?? '',
    dkimOn: s.dkim !== null,
    dkimDomain: s.dkim?.domainName ?? '',
    dkimSelector: s.dkim?.keySelector ?? '',
    dkimKey: '',
    dkimKeyMode: 'keep',
    defaultFromEmail: s.defaultFromEmail ?? '',
    defaultFromName: s.defaultFromName ?? '',
  };
}

/** A secret is sent when there is none saved yet or the user chose to replace it. */
const givesNew = (mode: SecretMode, isSet: boolean): boolean => mode === 'replace' || !isSet;

const wholeIn = (value: string, min: number, max: number): boolean => {
  if (!/^\d+$/.test(value.trim())) return false;
  const n = Number(value);
  return n >= min && n <= max;
};

function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** What is wrong, by the API's `param` name, before saving. */
export function checkSettings(d: SettingsDraft, s: EmailSettings): Record<string, string> {
  const errors: Record<string, string> = {};
  if (d.smtpOn) {
    if (!d.host.trim()) errors['smtp.host'] = 'Enter the server’s name, like smtp.example.com.';
    if (!wholeIn(d.port, 1, 65535)) errors['smtp.port'] = 'A port is a number from 1 to 65535.';
    if (d.passwordMode === 'replace' && !d.password && s.smtp?.passwordSet) {
      errors['smtp.password'] = 'Type the new password, or keep the saved one.';
    }
  }
  if (!wholeIn(d.rate, 1, 10_000)) {
    errors.ratePerSecond = 'A whole number of emails a second, from 1 to 10,000.';
  }
  const publicUrl = d.publicUrl.trim();
  if (publicUrl && !isWebUrl(publicUrl)) {
    errors.publicUrl =
      'An address starting with https:// (or http://), like https://mail.example.com.';
  }
  if (d.dkimOn) {
    if (!d.dkimDomain.trim()) errors['dkim.domainName'] = 'Enter the domain you send from.';
    if (!d.dkimSelector.trim())
      errors['dkim.keySelector'] = 'Enter the selector of the DNS record.';
    if (givesNew(d.dkimKeyMode, s.dkim?.keySet ?? false) && !d.dkimKey.trim()) {
      errors['dkim.privateKey'] = s.dkim?.keySet
        ? 'Paste the new private key, or keep the saved one.'
        : 'Paste the private key (PEM) that matches the public key in your DNS.';
    }
  }
  const from = d.defaultFromEmail.trim();
  if (from && !isEmailAddress(from)) {
    errors.defaultFromEmail = 'Not an email address a server would accept (like news@example.com).';
  }
  if (d.defaultFromName.trim().length > EMAIL_LIMITS.fromName) {
    errors.defaultFromName = `At most ${EMAIL_LIMITS.fromName} characters.`;
  }
  return errors;
}

export function settingsBody(d: SettingsDraft, s: EmailSettings): EmailSettingsBody {
  const password =
    d.passwordMode === 'remove'
      ? { password: null }
      : givesNew(d.passwordMode, s.smtp?.passwordSet ?? false) && d.password
        ? { password: d.password }
        : {};
  const privateKey = givesNew(d.dkimKeyMode, s.dkim?.keySet ?? false)
    ? { privateKey: d.dkimKey.trim() }
    : {};
  return {
    smtp: d.smtpOn
      ? {
          host: d.host.trim(),
          port: Number(d.port),
          secure: d.secure,
          user: d.user.trim() || null,
          ...password,
        }
      : null,
    ratePerSecond: Number(d.rate),
    publicUrl: d.publicUrl.trim() || null,
    dkim: d.dkimOn
      ? { domainName: d.dkimDomain.trim(), keySelector: d.dkimSelector.trim(), ...privateKey }
      : null,
    defaultFromEmail: d.defaultFromEmail.trim() || null,
    defaultFromName: d.defaultFromName.trim() || null,
  };
}

/** The order fields appear in, to focus the first one with an error. */
export const SETTINGS_ORDER = [
  'smtp.host',
  'smtp.port',
  'smtp.secure',
  'smtp.user',
  'smtp.password',
  'ratePerSecond',
  'defaultFromName',
  'defaultFromEmail',
  'publicUrl',
  'dkim.domainName',
  'dkim.keySelector',
  'dkim.privateKey',
];

/** The DOM id of a setting's input, from the API's `param` (`smtp.host` → …-smtp-host). */
export const settingsFieldId = (param: string): string =>
  `email-settings-${param.replace(/\./g, '-')}`;

/** The field an answer's `param` names, when the form has it (`smtp` alone is the host). */
export function settingsParam(param: string | undefined): string | null {
  if (!param) return null;
  if (SETTINGS_ORDER.includes(param)) return param;
  if (param === 'smtp') return 'smtp.host';
  if (param === 'dkim') return 'dkim.domainName';
  const head = param.split('.').slice(0, 2).join('.');
  return SETTINGS_ORDER.includes(head) ? head : null;
}
