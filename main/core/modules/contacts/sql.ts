import { sqlIso } from '../../db/sql.ts';
import type { ContactRow } from './repo.ts';

// The contacts module's SQL vocabulary for other modules' repos (a join that carries a contact):
// only repo files import it; the statements themselves stay in ./repo.ts.

/** A contact row's columns, in ContactRow's order. */
export const CONTACT_FIELDS = [
  'id',
  'workspace_id',
  'environment',
  'phone',
  'name',
  'email',
  'labels',
  'attributes',
  'created_at',
  'updated_at',
  'last_inbound_at',
  'email_unsubscribed_at',
  'wa_user_id',
] as const satisfies readonly (keyof ContactRow)[];

/**
 * A contact as its API JSON, built by SQLite: list pages skip per-row JSON.parse, Date and
 * JSON.stringify work in JS. Must stay equal to `toContact` (a test compares them).
 */
export const CONTACT_JSON = `json_object('id', c.id, 'phone', c.phone, 'waUserId', c.wa_user_id, 'name', c.name, 'email', c.email,
  'labels', json(c.labels), 'attributes', json(c.attributes), 'createdAt', ${sqlIso('c.created_at')},
  'updatedAt', ${sqlIso('c.updated_at')}, 'lastInboundAt', ${sqlIso('c.last_inbound_at')},
  'emailUnsubscribedAt', ${sqlIso('c.email_unsubscribed_at')})`;
