/**
 * Imported first by main.tsx, before any module that builds a zod schema (the shared rules some
 * screens read, e.g. event types and media limits): zod compiles object parsers with
 * `new Function` unless told not to, and even its probe for that is an `eval` the UI's
 * Content-Security-Policy (script-src 'self') refuses and reports. The UI never needs the speed.
 */
import { config } from 'zod';

config({ jitless: true });
