import { useEffect, useState } from 'react';
import type { PlaceholderContact } from '../../../../shared/placeholders.ts';
import { api, isAbortError, type ContactQuery } from '../../api/client.ts';
import type { CampaignTarget } from '../../stores/email-api.ts';

export interface SampleContact {
  contact: PlaceholderContact;
  /** How the preview names it: "Ada Lovelace (ada@example.com)". */
  label: string;
  /** One of the audience's contacts, rather than a made-up one. */
  real: boolean;
}

/** Who the preview is filled in for until the audience has a contact with an email. */
export const MADE_UP_CONTACT: SampleContact = {
  contact: {
    name: 'Alex Sample',
    phone: '+15555550100',
    email: 'alex@example.com',
    attributes: {},
  },
  label: 'Alex Sample, a made-up contact',
  real: false,
};

/** Reads a few of the audience's contacts: enough to find one with an email. */
const LOOK_AT = 25;

function queryFor(audience: CampaignTarget): ContactQuery | null {
  if (audience.groupId) return { group: audience.groupId, limit: LOOK_AT };
  const filter = audience.filter;
  if (filter?.labels?.[0]) return { label: filter.labels[0], limit: LOOK_AT };
  if (filter?.phones?.[0]) return { phone: filter.phones[0], limit: 1 };
  return null;
}

interface Found {
  key: string;
  sample: SampleContact;
}

/**
 * One of the audience's contacts, preferably one with an email, to fill the preview's
 * `{{contact.*}}` placeholders the way a recipient's email is filled; a made-up contact while
 * the audience is unset, empty or unreadable.
 */
export function useSampleContact(audience: CampaignTarget | null, delayMs = 400): SampleContact {
  const query = audience ? queryFor(audience) : null;
  const key = query ? JSON.stringify(query) : '';
  const [found, setFound] = useState<Found | null>(null);

  useEffect(() => {
    if (!key) return;
    const controller = new AbortController();
    const timer = window.setTimeout(() => {
      api.contacts.list(JSON.parse(key) as ContactQuery, controller.signal).then(
        (page) => {
          const contact = page.data.find((c) => c.email) ?? page.data[0];
          setFound({
            key,
            sample: contact
              ? {
                  contact,
                  label: `${contact.name ?? contact.phone}${contact.email ? ` (${contact.email})` : ''}, one of the recipients`,
                  real: true,
                }
              : MADE_UP_CONTACT,
          });
        },
        (e: unknown) => {
          if (!isAbortError(e)) setFound({ key, sample: MADE_UP_CONTACT });
        },
      );
    }, delayMs);
    return () => {
      window.clearTimeout(timer);
      controller.abort();
    };
  }, [key, delayMs]);

  if (!key || !found) return MADE_UP_CONTACT;
  // While another audience is read, the last contact found stays (no flicker to a made-up one).
  return found.sample;
}
