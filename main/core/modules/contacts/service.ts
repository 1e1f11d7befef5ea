import type { Database as Db } from 'better-sqlite3';
import { ApiError } from '../../../../shared/errors.ts';
import { labelsProblem, normalizeLabels } from '../../../../shared/labels.ts';
import { checkPhone, looksLikeUnencodedPlus } from '../../../../shared/phone.ts';
import type {
  Contact,
  Group,
  ImportResult,
  ImportRowError,
  PatchContactBody,
  UpsertContactBody,
} from '../../../../shared/schemas/contacts.ts';
import { decodeCursor, toPage, toRawPage } from '../../http/pagination.ts';
import type { Clock, IdGenerator, Scope } from '../../runtime.ts';
import { iso, isoOrNull } from '../../runtime.ts';
import type { ContactsExport } from './export.ts';
import { contactsExport } from './export.ts';
import type { ContactFilter, ContactRow, GroupRow } from './repo.ts';
import { contactsRepo } from './repo.ts';

type Attributes = Contact['attributes'];

export const toContact = (r: ContactRow): Contact => ({
  id: r.id,
  phone: r.phone,
  waUserId: r.wa_user_id,
  name: r.name,
  email: r.email,
  labels: JSON.parse(r.labels) as string[],
  attributes: JSON.parse(r.attributes) as Attributes,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
  lastInboundAt: isoOrNull(r.last_inbound_at),
  emailUnsubscribedAt: isoOrNull(r.email_unsubscribed_at),
});

const toGroup = (r: GroupRow): Group => ({
  id: r.id,
  name: r.name,
  memberCount: r.member_count,
  createdAt: iso(r.created_at),
});

export function phoneOrThrow(input: string, param = 'phone'): string {
  const checked = checkPhone(input);
  if (!checked.ok) {
    throw new ApiError(
      'validation_error',
      `phone "${input}" is not a valid international number: ${checked.reason} (use + and the country code, e.g. +14155552671)`,
      { param },
    );
  }
  return checked.phone;
}

/**
 * `phoneOrThrow` for a value read from a query string, where an unencoded `+` arrives as a
 * space: such a value gets a 400 that says to send `%2B`, not "not a valid number".
 */
export function queryPhoneOrThrow(input: string, param = 'phone'): string {
  if (looksLikeUnencodedPlus(input)) {
    throw new ApiError(
      'validation_error',
      `phone "${input}" starts with a space: a + in a query string must be sent as %2B (e.g. ?${param}=%2B${input.trim().replace(/\s+/g, '')})`,
      { param },
    );
  }
  return phoneOrThrow(input, param);
}

/** Where a message to this contact goes: its phone, else its BSUID (shared/phone.ts). */
export const addressOf = (c: {
  phone: string | null;
  wa_user_id?: string | null | undefined;
}): string => c.phone ?? c.wa_user_id ?? '';

/** Merges attribute changes: a key set to null is removed. */
function mergeAttributes(current: Attributes, changes: Attributes | undefined): Attributes {
  if (!changes) return current;
  const out: Attributes = { ...current };
  for (const [k, v] of Object.entries(changes)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  if (Object.keys(out).length > 100) {
    throw new ApiError('validation_error', 'a contact has at most 100 attributes', {
      param: 'attributes',
    });
  }
  return out;
}

export interface ContactChanges {
  phone?: string;
  name?: string | null;
  email?: string | null;
  labels?: string[];
  attributes?: Attributes;
  /** Import merges labels into the existing ones instead of replacing them. */
  mergeLabels?: boolean;
}

/** The list's filters as the API and the command line take them (`group`: a group id). */
export interface ContactQuery {
  phone?: string | undefined;
  waUserId?: string | undefined;
  label?: string | undefined;
  group?: string | undefined;
  q?: string | undefined;
}

/** Rows written per transaction by an import. */
export const IMPORT_BATCH = 1000;

export function contactsService(db: Db, clock: Clock, ids: IdGenerator) {
  const repo = contactsRepo(db);

  function requireGroup(scope: Scope, groupId: string, param = 'group'): GroupRow {
    const g = repo.getGroup(scope, groupId);
    if (!g) throw new ApiError('not_found', `no group ${groupId}`, { param });
    return g;
  }

  /** The list's filters, checked: a phone in any format, a group that exists in the scope. */
  function filterOf(scope: Scope, query: ContactQuery): ContactFilter {
    const filter: ContactFilter = {};
    if (query.phone) filter.phone = queryPhoneOrThrow(query.phone);
    if (query.waUserId?.trim()) filter.waUserId = query.waUserId.trim();
    if (query.label) filter.label = query.label.trim();
    if (query.group) filter.groupId = requireGroup(scope, query.group).id;
    if (query.q?.trim()) filter.q = query.q.trim();
    return filter;
  }

  /** A new contact's row (not yet stored): only what the caller knows is set. */
  function newRow(
    scope: Scope,
    fields: Partial<
      Pick<ContactRow, 'phone' | 'wa_user_id' | 'name' | 'email' | 'labels' | 'attributes'>
    >,
    now: number,
  ): ContactRow {
    return {
      id: ids('ct'),
      workspace_id: scope.workspaceId,
      environment: scope.environment,
      phone: null,
      name: null,
      email: null,
      labels: '[]',
      attributes: '{}',
      created_at: now,
      updated_at: now,
      last_inbound_at: null,
      email_unsubscribed_at: null,
      wa_user_id: null,
      ...fields,
    };
  }

  /** Writes one contact (insert or update by phone). Call inside a transaction. */
  function write(
    scope: Scope,
    phone: string,
    changes: ContactChanges,
  ): { row: ContactRow; created: boolean } {
    const now = clock.now();
    const existing = repo.byPhone(scope, phone);
    if (!existing) {
      const labels = normalizeLabels(changes.labels ?? []);
      const row = newRow(
        scope,
        {
          phone,
          name: changes.name ?? null,
          email: changes.email ?? null,
          labels: JSON.stringify(labels),
          attributes: JSON.stringify(mergeAttributes({}, changes.attributes)),
        },
        now,
      );
      repo.insert(row);
      repo.setLabels(row, labels);
      return { row, created: true };
    }
    return { row: applyChanges(existing, changes, now), created: false };
  }

  /**
   * The contact a channel message comes from (README "Connecting WhatsApp", who a customer is), by its BSUID
   * first, then its phone; created when neither is known. What the message adds is merged in:
   * the BSUID onto the contact with that phone, the phone onto a contact known only by its
   * BSUID (unless another contact has it: then the message stays with the BSUID's contact and
   * both records remain), the profile name onto a contact without a name. Call inside a
   * transaction.
   */
  function identify(
    scope: Scope,
    who: { phone?: string | null; waUserId?: string | null; profileName?: string | null },
  ): ContactRow {
    const phone = who.phone || null;
    const waUserId = who.waUserId || null;
    const profileName = who.profileName?.trim().slice(0, 200) || null;
    if (!phone && !waUserId) throw new Error('a channel message names neither phone nor user id');
    const byUser = waUserId ? repo.byWaUserId(scope, waUserId) : undefined;
    // The phone is looked up only when it could decide something: no contact by user id, or
    // one without a phone (which takes it unless another contact has it).
    const byPhone = phone && !byUser?.phone ? repo.byPhone(scope, phone) : undefined;
    const found = byUser ?? byPhone;
    const now = clock.now();
    if (!found) {
      const row = newRow(scope, { phone, name: profileName, wa_user_id: waUserId }, now);
      repo.insert(row);
      return row;
    }
    const next: ContactRow = { ...found };
    if (waUserId && !found.wa_user_id) next.wa_user_id = waUserId;
    if (phone && !found.phone && !byPhone) next.phone = phone;
    if (profileName && !found.name) next.name = profileName;
    if (
      next.wa_user_id === found.wa_user_id &&
      next.phone === found.phone &&
      next.name === found.name
    )
      return found;
    next.updated_at = now;
    repo.update(next);
    return next;
  }

  /**
   * The customer moved to another number or user id (Meta's `user_changed_number` and
   * `user_changed_user_id` system messages): the contact follows, unless another contact holds
   * the new one already (then nothing moves and the caller says so). Call inside a transaction.
   */
  function moveIdentity(
    scope: Scope,
    contact: ContactRow,
    to: { phone?: string | null; waUserId?: string | null },
  ): { row: ContactRow; moved: boolean } {
    const next: ContactRow = { ...contact };
    if (to.phone && to.phone !== contact.phone) {
      const other = repo.byPhone(scope, to.phone);
      if (other && other.id !== contact.id) return { row: contact, moved: false };
      next.phone = to.phone;
    }
    if (to.waUserId && to.waUserId !== contact.wa_user_id) {
      const other = repo.byWaUserId(scope, to.waUserId);
      if (other && other.id !== contact.id) return { row: contact, moved: false };
      next.wa_user_id = to.waUserId;
    }
    if (next.phone === contact.phone && next.wa_user_id === contact.wa_user_id)
      return { row: contact, moved: false };
    next.updated_at = clock.now();
    repo.update(next);
    return { row: next, moved: true };
  }

  function applyChanges(existing: ContactRow, changes: ContactChanges, now: number): ContactRow {
    const currentLabels = JSON.parse(existing.labels) as string[];
    const labels =
      changes.labels === undefined
        ? currentLabels
        : normalizeLabels(
            changes.mergeLabels ? [...currentLabels, ...changes.labels] : changes.labels,
          );
    // Import merges into the labels a contact has: the sum, not the request, meets the limit.
    const problem = labelsProblem(labels);
    if (problem) throw new ApiError('validation_error', problem, { param: 'labels' });
    const row: ContactRow = {
      ...existing,
      phone: changes.phone ?? existing.phone,
      name: changes.name === undefined ? existing.name : changes.name,
      email: changes.email === undefined ? existing.email : changes.email,
      labels: JSON.stringify(labels),
      attributes: JSON.stringify(
        mergeAttributes(JSON.parse(existing.attributes) as Attributes, changes.attributes),
      ),
      updated_at: now,
    };
    repo.update(row);
    if (changes.labels !== undefined) repo.setLabels(row, labels);
    return row;
  }

  const service = {
    repo,
    write,
    identify,
    moveIdentity,
    requireGroup,

    /** A contact's row by id, or undefined (other modules read contacts through these). */
    find: (scope: Scope, id: string): ContactRow | undefined => repo.get(scope, id),
    findByPhone: (scope: Scope, phone: string): ContactRow | undefined =>
      repo.byPhone(scope, phone),
    findByWaUserId: (scope: Scope, waUserId: string): ContactRow | undefined =>
      repo.byWaUserId(scope, waUserId),
    /** The contact with this phone, created (with no other fields) if new. Inside a transaction. */
    ensure: (scope: Scope, phone: string): ContactRow =>
      repo.byPhone(scope, phone) ?? write(scope, phone, {}).row,
    /** The contact wrote at `at`: its service window runs from then. */
    markInbound: (id: string, at: number, now: number) => repo.setLastInbound(id, at, now),

    /**
     * A page of contacts as a ready JSON body: `{data, nextCursor}`, and on the first page
     * `total`, the count of contacts matching the filters (counted once per list, not per page).
     */
    list(scope: Scope, query: ContactQuery & { limit: number; cursor?: string }): string {
      const filter = filterOf(scope, query);
      const after = query.cursor ? decodeCursor(query.cursor) : null;
      const body = toRawPage(repo.list(scope, filter, after, query.limit + 1), query.limit);
      if (after !== null) return body;
      return `${body.slice(0, -1)},"total":${repo.count(scope, filter)}}`;
    },

    /**
     * `GET /api/contacts/export`, `parley contacts export`: the contacts the list's filters
     * match, as CSV batches (csv-export.ts). A filter naming no group is a 404 before anything
     * is streamed.
     */
    export: (scope: Scope, query: ContactQuery): ContactsExport =>
      contactsExport(repo, scope, filterOf(scope, query)),

    get(scope: Scope, id: string): Contact {
      const row = repo.get(scope, id);
      if (!row) throw new ApiError('not_found', `no contact ${id}`);
      return toContact(row);
    },

    upsert(scope: Scope, body: UpsertContactBody): { contact: Contact; created: boolean } {
      const phone = phoneOrThrow(body.phone);
      return db
        .transaction(() => {
          const changes: ContactChanges = {};
          if (body.name !== undefined) changes.name = body.name || null;
          if (body.email !== undefined) changes.email = body.email;
          if (body.labels !== undefined) changes.labels = body.labels;
          if (body.attributes !== undefined) changes.attributes = body.attributes;
          const { row, created } = write(scope, phone, changes);
          return { contact: toContact(row), created };
        })
        .immediate();
    },

    patch(scope: Scope, id: string, body: PatchContactBody): Contact {
      return db
        .transaction(() => {
          const existing = repo.get(scope, id);
          if (!existing) throw new ApiError('not_found', `no contact ${id}`);
          const changes: ContactChanges = {};
          if (body.phone !== undefined) {
            const phone = phoneOrThrow(body.phone);
            const other = repo.byPhone(scope, phone);
            if (other && other.id !== id) {
              throw new ApiError(
                'validation_error',
                `another contact (${other.id}) has phone ${phone}`,
                {
                  param: 'phone',
                },
              );
            }
            changes.phone = phone;
          }
          if (body.name !== undefined) changes.name = body.name || null;
          if (body.email !== undefined) changes.email = body.email;
          if (body.labels !== undefined) changes.labels = body.labels;
          if (body.attributes !== undefined) changes.attributes = body.attributes;
          return toContact(applyChanges(existing, changes, clock.now()));
        })
        .immediate();
    },

    /**
     * Writes an import's checked rows (upsert by phone, labels merged, optionally into a group)
     * in one synchronous transaction: all of them or, if anything throws, none.
     */
    /**
     * Writes an import's checked rows, IMPORT_BATCH per transaction with a turn of the event
     * loop between, so a 100,000-row file never holds the store for seconds. Every row is an
     * upsert by phone, so a retry after a crash mid-way converges on the same contacts. The last
     * batch runs inside `lastBatch` (the route stores its Idempotency-Key answer there).
     */
    async commitImport(
      scope: Scope,
      rows: readonly { phone: string; changes: ContactChanges }[],
      opts: { groupId: string | null; total: number; failed: number; errors: ImportRowError[] },
      hooks: {
        onProgress?: (written: number, of: number) => void;
        lastBatch?: (effect: () => ImportResult) => ImportResult;
      } = {},
    ): Promise<ImportResult> {
      let created = 0;
      let updated = 0;
      const batch = (from: number) =>
        db
          .transaction(() => {
            if (opts.groupId) requireGroup(scope, opts.groupId, 'groupId');
            for (const r of rows.slice(from, from + IMPORT_BATCH)) {
              const { row, created: isNew } = write(scope, r.phone, r.changes);
              if (isNew) created++;
              else updated++;
              if (opts.groupId) repo.addMember(opts.groupId, row.id, row.updated_at);
            }
          })
          .immediate();
      let from = 0;
      for (; from + IMPORT_BATCH < rows.length; from += IMPORT_BATCH) {
        batch(from);
        hooks.onProgress?.(from + IMPORT_BATCH, rows.length);
        await new Promise((r) => setImmediate(r));
      }
      const result = (hooks.lastBatch ?? ((f) => f()))(() => {
        batch(from);
        return { total: opts.total, created, updated, failed: opts.failed, errors: opts.errors };
      });
      hooks.onProgress?.(rows.length, rows.length);
      return result;
    },

    createGroup(scope: Scope, name: string, contactIds: string[] = []): Group {
      return db
        .transaction(() => {
          if (repo.groupByName(scope, name)) {
            throw new ApiError('validation_error', `a group named "${name}" exists already`, {
              param: 'name',
            });
          }
          const id = ids('grp');
          repo.insertGroup(scope, id, name, clock.now());
          service.addMembers(scope, id, contactIds);
          return toGroup(requireGroup(scope, id));
        })
        .immediate();
    },

    addMembers(scope: Scope, groupId: string, contactIds: string[]): Group {
      return db
        .transaction(() => {
          requireGroup(scope, groupId);
          const at = clock.now();
          contactIds.forEach((cid, i) => {
            if (!repo.contactInScope(scope, cid)) {
              throw new ApiError('not_found', `no contact ${cid}`, { param: `contactIds.${i}` });
            }
            repo.addMember(groupId, cid, at);
          });
          return toGroup(requireGroup(scope, groupId));
        })
        .immediate();
    },

    listGroups(scope: Scope, limit: number, cursor?: string) {
      const after = cursor ? decodeCursor(cursor) : null;
      return toPage(repo.listGroups(scope, after, limit + 1), limit, toGroup, (r) => r.id);
    },

    getGroup: (scope: Scope, id: string): Group => toGroup(requireGroup(scope, id, 'id')),
  };
  return service;
}
export type ContactsService = ReturnType<typeof contactsService>;
