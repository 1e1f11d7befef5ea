import type { Conversation } from '../../../shared/schemas/index.ts';

/** Enough that a write copies a few dozen entries even with thousands of conversations seen. */
const BUCKETS = 64;

function bucketOf(id: string): number {
  let hash = 0;
  for (let i = 0; i < id.length; i++) hash = (hash * 31 + id.charCodeAt(i)) | 0;
  return (hash >>> 0) % BUCKETS;
}

/**
 * The conversations a desk has seen, by id: an immutable map for the inbox's pure reducer. Every
 * event writes one conversation, so a write copies only the bucket it lands in and shares the
 * rest (copying a whole Map per event cost more than the rest of the event's work).
 */
export class KnownConversations {
  static readonly empty = new KnownConversations(
    Array.from({ length: BUCKETS }, () => new Map<string, Conversation>()),
  );

  private constructor(private readonly buckets: readonly ReadonlyMap<string, Conversation>[]) {}

  get(id: string): Conversation | undefined {
    return this.buckets[bucketOf(id)]!.get(id);
  }

  has(id: string): boolean {
    return this.buckets[bucketOf(id)]!.has(id);
  }

  /** A copy holding these (each replacing the one of its id); this one is left as it was. */
  with(list: readonly Conversation[]): KnownConversations {
    if (list.length === 0) return this;
    const buckets = this.buckets.slice();
    const copied = new Map<number, Map<string, Conversation>>();
    for (const c of list) {
      const index = bucketOf(c.id);
      let bucket = copied.get(index);
      if (!bucket) {
        bucket = new Map(buckets[index]);
        copied.set(index, bucket);
        buckets[index] = bucket;
      }
      bucket.set(c.id, c);
    }
    return new KnownConversations(buckets);
  }
}
