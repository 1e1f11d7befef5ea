/**
 * Text that ends up in a mail header (a subject, a sender's or a contact's name, an address):
 * CR and LF would start a new header line for a strict parser, and the other C0 control
 * characters (and DEL) have no business there either. The schemas refuse them (400
 * `validation_error` naming the field); text written before that rule is cleaned when composed.
 * No zod, no Node, no DOM.
 */

/** C0 controls (U+0000–U+001F, tab, CR and LF included) and DEL. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u001f\u007f]+/g;

export const CONTROL_CHARS_MESSAGE =
  'must not contain line breaks, tabs or other control characters';

export const hasControlChars = (s: string): boolean => CONTROL.test(s);

/** A value for a header: each run of control characters becomes one space. */
export const headerSafe = (s: string): string => s.replace(CONTROLS, ' ');
