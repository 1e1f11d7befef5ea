/**
 * The channel settings form's model: what is typed, the checks made before saving (the core has
 * the last word and names the field in `param`), and the body sent. The access token and the app
 * secret are write-only: the form knows only whether one is saved, and sends one only when the
 * user gives a new one.
 */
import type { ChannelSettings, ChannelSettingsBody } from '../../../../shared/schemas/channel.ts';

export type Provider = ChannelSettings['provider'];

/** What happens to a saved secret: kept (not sent) or replaced by the one typed. */
export type SecretMode = 'keep' | 'replace';

export interface ChannelDraft {
  provider: Provider;
  phoneNumberId: string;
  wabaId: string;
  accessToken: string;
  accessTokenMode: SecretMode;
  appSecret: string;
  appSecretMode: SecretMode;
  verifyToken: string;
  /** Empty: Meta's own Graph API. */
  graphBaseUrl: string;
}

/** Where the core sends Cloud API calls unless told otherwise (the core's own default). */
export const DEFAULT_GRAPH_BASE_URL = 'https://graph.facebook.com/v21.0';

/** The same bounds as the core's schema, so most mistakes are named before saving. */
const ID_PATTERN = /^\d{5,30}$/;
const VERIFY_TOKEN_PATTERN = /^[A-Za-z0-9._~-]{8,128}$/;
const TOKEN_LENGTH = { min: 20, max: 2048 };
const SECRET_LENGTH = { min: 8, max: 256 };
const URL_MAX = 300;

const savedBaseUrl = (s: ChannelSettings): string =>
  s.graphBaseUrl === DEFAULT_GRAPH_BASE_URL ? '' : s.graphBaseUrl;

export function channelDraftOf(s: ChannelSettings): ChannelDraft {
  return {
    provider: s.provider,
    phoneNumberId: s.phoneNumberId ?? '',
    wabaId: s.wabaId ?? '',
    accessToken: '',
    accessTokenMode: 'keep',
    appSecret: '',
    appSecretMode: 'keep',
    verifyToken: s.verifyToken,
    graphBaseUrl: savedBaseUrl(s),
  };
}

/** A secret is sent when there is none saved yet or the user chose to replace it. */
const givesNew = (mode: SecretMode, isSet: boolean): boolean => mode === 'replace' || !isSet;

export function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

function checkSecret(
  value: string,
  isSet: boolean,
  what: { name: string; where: string },
  length: { min: number; max: number },
): string | undefined {
  const v = value.trim();
  if (!v) {
    return isSet
      ? `Paste the new ${what.name}, or keep the saved one.`
      : `Paste the ${what.name}: ${what.where}.`;
  }
  if (v.length < length.min) return `That is too short for a ${what.name}: paste all of it.`;
  if (v.length > length.max) return `A ${what.name} is at most ${length.max} characters.`;
  return undefined;
}

/** What is wrong, by the API's `param` name, before saving. */
export function checkChannel(d: ChannelDraft, s: ChannelSettings): Record<string, string> {
  const errors: Record<string, string> = {};
  if (d.provider === 'cloud_api') {
    if (!ID_PATTERN.test(d.phoneNumberId.trim())) {
      errors.phoneNumberId = d.phoneNumberId.trim()
        ? 'A phone number id is digits only, as Meta shows it under WhatsApp → API Setup.'
        : 'Enter the phone number id Meta shows under WhatsApp → API Setup.';
    }
    if (!ID_PATTERN.test(d.wabaId.trim())) {
      errors.wabaId = d.wabaId.trim()
        ? 'A WhatsApp Business Account id is digits only.'
        : 'Enter the WhatsApp Business Account id, shown beside the phone number id.';
    }
    if (givesNew(d.accessTokenMode, s.accessTokenSet)) {
      const error = checkSecret(
        d.accessToken,
        s.accessTokenSet,
        {
          name: 'access token',
          where: 'a permanent token of a system user in Meta Business settings',
        },
        TOKEN_LENGTH,
      );
      if (error) errors.accessToken = error;
    }
    if (givesNew(d.appSecretMode, s.appSecretSet)) {
      const error = checkSecret(
        d.appSecret,
        s.appSecretSet,
        { name: 'app secret', where: 'your Meta app’s Settings → Basic' },
        SECRET_LENGTH,
      );
      if (error) errors.appSecret = error;
    }
    const base = d.graphBaseUrl.trim();
    if (base && (!isWebUrl(base) || base.length > URL_MAX)) {
      errors.graphBaseUrl = `An address starting with https:// (or http://), like ${DEFAULT_GRAPH_BASE_URL}.`;
    }
  }
  if (!VERIFY_TOKEN_PATTERN.test(d.verifyToken.trim())) {
    errors.verifyToken = '8 to 128 letters, digits or . _ ~ - (no spaces).';
  }
  return errors;
}

/** The body to save: only what changed, so a saved secret or connection is left as it is. */
export function channelBody(d: ChannelDraft, s: ChannelSettings): ChannelSettingsBody {
  const body: ChannelSettingsBody = { provider: d.provider };
  const verifyToken = d.verifyToken.trim();
  if (verifyToken !== s.verifyToken) body.verifyToken = verifyToken;
  // The Cloud API's fields are kept as they are while the simulator is chosen.
  if (d.provider !== 'cloud_api') return body;
  const phoneNumberId = d.phoneNumberId.trim();
  if (phoneNumberId !== (s.phoneNumberId ?? '')) body.phoneNumberId = phoneNumberId;
  const wabaId = d.wabaId.trim();
  if (wabaId !== (s.wabaId ?? '')) body.wabaId = wabaId;
  if (givesNew(d.accessTokenMode, s.accessTokenSet)) body.accessToken = d.accessToken.trim();
  if (givesNew(d.appSecretMode, s.appSecretSet)) body.appSecret = d.appSecret.trim();
  const base = d.graphBaseUrl.trim().replace(/\/+$/, '');
  if (base !== savedBaseUrl(s)) body.graphBaseUrl = base || null;
  return body;
}

/** The order fields appear in, to focus the first one with an error. */
export const CHANNEL_ORDER = [
  'provider',
  'phoneNumberId',
  'wabaId',
  'accessToken',
  'appSecret',
  'graphBaseUrl',
  'verifyToken',
];

/** The DOM id of a setting's input, from the API's `param` (`phoneNumberId` → channel-phone-number-id). */
export const channelFieldId = (param: string): string =>
  `channel-${param.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** The field an answer's `param` names, when the form has it. */
export function channelParam(param: string | undefined): string | null {
  if (!param) return null;
  const head = param.split('.')[0] ?? '';
  return CHANNEL_ORDER.includes(head) ? head : null;
}
