// SQL helpers every repo may use (they know no table).

/** ISO 8601 (UTC, milliseconds) from integer epoch ms, as `new Date(ms).toISOString()` writes it. */
export const sqlIso = (col: string) =>
  `strftime('%Y-%m-%dT%H:%M:%fZ', ${col} / 1000.0, 'unixepoch')`;

/** A LIKE pattern's text with its wildcards escaped (use with `ESCAPE '\'`). */
export const escapeLike = (s: string) => s.replace(/[\\%_]/g, (m) => '\\' + m);
