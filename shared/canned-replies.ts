/**
 * The rules of a canned reply, zod-free so the renderer checks them as the user types with the
 * very constants the core validates with (shared/schemas/canned-replies.ts).
 */

/** What an agent types after `/` in the composer. */
export const SHORTCUT_MAX = 32;
export const SHORTCUT_PATTERN = new RegExp(`^[a-z0-9_-]{1,${SHORTCUT_MAX}}$`);
export const SHORTCUT_RULE = `shortcut is 1–${SHORTCUT_MAX} lowercase letters, digits, "_" or "-" (typed after "/")`;
export const CANNED_TEXT_MAX = 4096;
