import { z } from 'zod';
import { CONTROL_CHARS_MESSAGE, hasControlChars } from '../header-text.ts';

/**
 * A string bound for a mail header (shared/header-text.ts): CR, LF and the other control
 * characters are refused before anything else is checked, so a trailing line break is an
 * error rather than trimmed away.
 */
export const headerText = () =>
  z.string().refine((s) => !hasControlChars(s), { message: CONTROL_CHARS_MESSAGE, abort: true });
