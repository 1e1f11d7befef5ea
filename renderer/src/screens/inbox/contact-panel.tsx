import { useEffect, useRef, type ReactNode } from 'react';
import type { Conversation } from '../../../../shared/schemas/index.ts';
import { Avatar } from '../../components/avatar.tsx';
import { formatDate, formatDateTime } from '../../components/format.ts';
import { CloseIcon } from '../../components/icons.tsx';
import { Ticks } from '../../components/ticks.tsx';
import { ContactCampaigns } from '../campaigns/contact-campaigns.tsx';
import { conversationTitle } from '../../stores/inbox.ts';
import { useThread } from '../../stores/thread.ts';
import { contactHandle } from '../../../../shared/phone.ts';

const RECENT_TEMPLATES = 5;

/** The panel's id: the thread header's toggle controls it. */
export const CONTACT_PANEL_ID = 'inbox-contact-panel';

function Field({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="panel-field">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function RecentTemplates() {
  const messages = useThread((s) => s.messages);
  const recent = messages
    .filter((m) => m.type === 'template' && m.direction === 'outbound')
    .slice(-RECENT_TEMPLATES)
    .reverse();
  if (recent.length === 0) {
    return <p className="muted small">No templates sent in the messages loaded here.</p>;
  }
  return (
    <ul className="panel-list" data-testid="recent-templates">
      {recent.map((m) => (
        <li key={m.id} className="panel-list-item">
          <span className="panel-list-main">
            <span className="mono truncate">{m.templateName ?? 'template'}</span>
            <span className="muted small">{formatDateTime(m.createdAt)}</span>
          </span>
          <Ticks status={m.status} />
        </li>
      ))}
    </ul>
  );
}

interface ContactPanelProps {
  conversation: Conversation;
  /** Set when the panel lies over the thread: it then has a close button and closes on Escape. */
  onClose?: () => void;
}

/** The person behind the conversation: phone, name, email, attributes, labels, recent sends. */
export function ContactPanel({ conversation, onClose }: ContactPanelProps) {
  const contact = conversation.contact;
  const attributes = Object.entries(contact.attributes);
  const title = conversationTitle(conversation);
  const ref = useRef<HTMLElement>(null);
  const overlay = onClose !== undefined;

  // Opened over the thread on request: focus moves in, so Escape and the keyboard reach it.
  useEffect(() => {
    if (overlay) ref.current?.focus();
  }, [overlay]);

  return (
    <aside
      ref={ref}
      id={CONTACT_PANEL_ID}
      className={`contact-panel${overlay ? ' contact-panel-overlay' : ''}`}
      aria-label="Contact details"
      tabIndex={overlay ? -1 : undefined}
      onKeyDown={
        overlay
          ? (event) => {
              if (event.key !== 'Escape') return;
              // Escape here closes the panel, not also whatever the inbox binds it to.
              event.stopPropagation();
              onClose();
            }
          : undefined
      }
      data-testid="contact-panel"
    >
      {overlay ? (
        <button
          type="button"
          className="icon-button panel-close"
          aria-label="Close contact details"
          onClick={onClose}
          data-testid="close-contact-panel"
        >
          <CloseIcon />
        </button>
      ) : null}
      <div className="panel-hero">
        <Avatar name={title} colorKey={contact.id} size="large" />
        <div className="panel-hero-text">
          <h3 className="truncate" data-testid="panel-name">
            {contact.name ?? 'Unnamed contact'}
          </h3>
          <span className="mono" data-testid="panel-phone">
            {contactHandle(contact)}
          </span>
        </div>
      </div>

      <section className="panel-section">
        <h4>Contact</h4>
        <dl className="panel-fields">
          <Field label="Phone">
            {contact.phone ? (
              <span className="mono">{contact.phone}</span>
            ) : (
              <span className="muted">Not shared (a WhatsApp username user)</span>
            )}
          </Field>
          {contact.waUserId ? (
            <Field label="WhatsApp user id">
              <span className="mono" data-testid="panel-wa-user-id">
                {contact.waUserId}
              </span>
            </Field>
          ) : null}
          <Field label="Name">{contact.name ?? <span className="muted">—</span>}</Field>
          <Field label="Email">
            {contact.email ? (
              <a
                href={`mailto:${contact.email}`}
                className="truncate contact-email"
                title={contact.email}
                data-testid="contact-email"
              >
                {contact.email}
              </a>
            ) : (
              <span className="muted">—</span>
            )}
          </Field>
          <Field label="Added">{formatDate(contact.createdAt)}</Field>
        </dl>
      </section>

      <section className="panel-section">
        <h4>Labels</h4>
        {contact.labels.length > 0 ? (
          <div className="chips chips-wrap" data-testid="contact-labels">
            {contact.labels.map((label) => (
              <span key={label} className="chip">
                {label}
              </span>
            ))}
          </div>
        ) : (
          <p className="muted small">No contact labels.</p>
        )}
      </section>

      <section className="panel-section">
        <h4>Attributes</h4>
        {attributes.length > 0 ? (
          <dl className="panel-fields" data-testid="contact-attributes">
            {attributes.map(([key, value]) => (
              <Field key={key} label={key}>
                {value === null ? <span className="muted">—</span> : String(value)}
              </Field>
            ))}
          </dl>
        ) : (
          <p className="muted small">No attributes.</p>
        )}
      </section>

      <section className="panel-section">
        <h4>Recent templates</h4>
        <RecentTemplates />
      </section>

      <section className="panel-section">
        <h4>Campaigns</h4>
        <ContactCampaigns contactId={contact.id} />
      </section>

      <section className="panel-section">
        <h4>Conversation</h4>
        <dl className="panel-fields">
          <Field label="Started">{formatDateTime(conversation.createdAt)}</Field>
          <Field label="Last inbound">{formatDateTime(conversation.lastInboundAt, 'Never')}</Field>
        </dl>
      </section>
    </aside>
  );
}
