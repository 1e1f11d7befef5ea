import { ApiError } from '../../../shared/errors.ts';

/** Cursors are opaque to clients: base64url of the last item's sort key. */
export const encodeCursor = (key: string | number): string =>
  Buffer.from(JSON.stringify(key)).toString('base64url');

export function decodeCursor(cursor: string): string {
  const value = decodeAny(cursor);
  if (typeof value !== 'string') throw badCursor();
  return value;
}

export function decodeNumericCursor(cursor: string): number {
  const value = decodeAny(cursor);
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw badCursor();
  return value;
}

function decodeAny(cursor: string): unknown {
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
}

const badCursor = () =>
  new ApiError('validation_error', 'cursor is not a cursor this API returned', { param: 'cursor' });

/** Takes `limit + 1` rows, returns a page and the cursor after its last item. */
export function toPage<R, T>(
  rows: R[],
  limit: number,
  map: (r: R) => T,
  key: (r: R) => string | number,
) {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  return {
    data: kept.map(map),
    nextCursor: more ? encodeCursor(key(kept[kept.length - 1]!)) : null,
  };
}

/**
 * The same page as `toPage`, from rows of `[sort key, item JSON]` whose JSON the database built:
 * the body is assembled as a string, with no per-item parse or stringify.
 */
export function toRawPage(rows: [string | number, string][], limit: number): string {
  const { items, nextCursor } = rawPageParts(rows, limit);
  return `{"data":${items},"nextCursor":${nextCursor}}`;
}

/** The JSON pieces of such a page, for bodies that embed one (a conversation with its messages). */
export function rawPageParts(rows: [string | number, string][], limit: number) {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  return {
    items: `[${kept.map((r) => r[1]).join(',')}]`,
    nextCursor: more ? JSON.stringify(encodeCursor(kept[kept.length - 1]![0])) : 'null',
  };
}
