/**
 * Memory that follows the store's rollbacks. A few services keep state in memory that a
 * transaction's work changes (the simulated provider's recent hand-overs); when the scheduler
 * rolls a job's transaction or savepoint back, those changes must go too, or a job run again
 * (a retry, a chunk replayed job by job) is counted twice. `frame` wraps exactly one
 * transaction or savepoint; `add` records how to undo a change made inside it. A frame that
 * ends normally hands its undos to the one around it (its savepoint's changes now belong to the
 * enclosing transaction); one that throws runs them, newest first. Outside any frame (a request's
 * own transaction) `add` does nothing.
 */
export function createUndoLog() {
  const frames: (() => void)[][] = [];
  return {
    add(undo: () => void): void {
      frames[frames.length - 1]?.push(undo);
    },
    frame<T>(f: () => T): T {
      frames.push([]);
      let result: T;
      try {
        result = f();
      } catch (e) {
        const undos = frames.pop()!;
        for (let i = undos.length - 1; i >= 0; i--) undos[i]!();
        throw e;
      }
      const undos = frames.pop()!;
      frames[frames.length - 1]?.push(...undos);
      return result;
    },
  };
}
export type UndoLog = ReturnType<typeof createUndoLog>;
