import { useState } from 'react';
import type { SharedContact } from '../../../../shared/schemas/media.ts';
import { api } from '../../api/client.ts';
import { notify, notifyError } from '../../stores/toasts.ts';
import { PersonIcon } from '../icons.tsx';
import { MediaCard } from './media-card.tsx';
import './media.css';

/** The number to save a card under: the WhatsApp one when the card names it, else the first. */
function phoneToSave(card: SharedContact): string | null {
  const onWhatsApp = card.phones.find((p) => p.waId);
  if (onWhatsApp?.waId) return `+${onWhatsApp.waId.replace(/^\+/, '')}`;
  return card.phones[0]?.phone ?? null;
}

function ContactCard({ card }: { card: SharedContact }) {
  const [saving, setSaving] = useState(false);
  const name = card.name?.trim() || null;
  const phone = phoneToSave(card);
  const shownName = name ?? phone ?? 'Contact';

  const add = () => {
    if (!phone) return;
    setSaving(true);
    const email = card.emails[0]?.email;
    api.contacts
      .upsert({ phone, ...(name ? { name } : {}), ...(email ? { email } : {}) })
      .then(
        ({ created }) =>
          notify(
            'success',
            created ? `${shownName} added to contacts` : `${shownName} updated in contacts`,
          ),
        notifyError,
      )
      .finally(() => setSaving(false));
  };

  return (
    <MediaCard as="li" icon={<PersonIcon />} className="contact-card" testId="contact-card">
      <div className="media-card-title" data-testid="contact-card-name">
        {shownName}
      </div>
      {card.organization ? <div className="media-card-sub">{card.organization}</div> : null}
      {card.phones.map((p) => (
        <div key={`phone-${p.phone}`} className="media-card-sub mono">
          {p.phone}
          {p.type ? <span className="contact-card-type"> · {p.type.toLowerCase()}</span> : null}
        </div>
      ))}
      {card.emails.map((e) => (
        <div key={`email-${e.email}`} className="media-card-sub">
          {e.email}
        </div>
      ))}
      <button
        type="button"
        className="link-button media-card-link"
        disabled={!phone || saving}
        title={phone ? undefined : 'This card has no phone number to save'}
        aria-label={`Add to contacts: ${shownName}`}
        onClick={add}
        data-testid="contact-card-add"
      >
        {saving ? 'Adding…' : 'Add to contacts'}
      </button>
    </MediaCard>
  );
}

/** Contact cards the customer shared, each with "Add to contacts" (an upsert by phone). */
export function ContactCards({ cards }: { cards: readonly SharedContact[] }) {
  return (
    <ul className="contact-cards" aria-label="Shared contacts">
      {cards.map((card, i) => (
        <ContactCard key={i} card={card} />
      ))}
    </ul>
  );
}
