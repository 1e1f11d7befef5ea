import type { Database as Db } from 'better-sqlite3';

/**
 * Values read from the store once and kept while nothing changes them (the webhook
 * subscriptions idea of events/outbox.ts): another process's commit moves `PRAGMA data_version`,
 * which clears them; this process's own writes call `changed()`. Until the tick of such a write
 * has ended (its transaction committed or rolled back) nothing is kept, so no value a rollback
 * undid survives.
 */
export function readCache<K, V>(db: Db) {
  const dataVersion = db.prepare('PRAGMA data_version').pluck();
  const values = new Map<K, V>();
  let seen: unknown = null;
  let inFlux = false;
  return {
    get(key: K, read: () => V): V {
      if (inFlux) return read();
      const version = dataVersion.get();
      if (version !== seen) {
        values.clear();
        seen = version;
      }
      let v = values.get(key);
      if (v === undefined) values.set(key, (v = read()));
      return v;
    },
    /** This process wrote what the values are read from: forget them, and keep none this tick. */
    changed() {
      values.clear();
      if (inFlux) return;
      inFlux = true;
      setImmediate(() => {
        inFlux = false;
        values.clear();
      });
    },
  };
}
export type ReadCache<K, V> = ReturnType<typeof readCache<K, V>>;
