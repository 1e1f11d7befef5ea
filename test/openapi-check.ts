/**
 * Checks real error answers against `/openapi.json`: the operation exists, it lists the status,
 * the code is one of those the status declares (each has an example named after it), and the
 * body validates against the response schema. `request()` in helpers.ts calls it for every
 * answer ≥ 400, so the whole API suite keeps the document honest.
 */
import fs from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ERROR_CATALOG } from '../shared/errors.ts';

export interface ErrorAnswer {
  method: string;
  url: string;
  status: number;
  /** The answer's Content-Type. */
  type: string;
  body: unknown;
}

type Json = Record<string, unknown>;

interface Route {
  path: string;
  pattern: RegExp;
  /** Literal segments first: `/api/contacts/groups` wins over `/api/contacts/{id}`. */
  params: number;
  operations: Record<string, Json>;
}

interface Checker {
  routes: Route[];
  schemas: Json;
}

/** A core's document is built once (swagger caches it); cores differ (`/login` is optional). */
const checkers = new WeakMap<object, Checker>();
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
/** Compiled response schemas, shared by every core of the worker: keyed by the schema's text. */
const validators = new Map<string, ValidateFunction>();

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null;

/** The document's schemas with their refs rewritten to `$defs`, so Ajv resolves them alone. */
const withDefs = (schema: unknown, defs: Json): Json =>
  JSON.parse(
    JSON.stringify({ ...(schema as Json), $defs: defs }).replaceAll(
      '"#/components/schemas/',
      '"#/$defs/',
    ),
  ) as Json;

function build(doc: unknown): Checker {
  if (!isObject(doc) || !isObject(doc.paths)) throw new Error('openapi-check: no paths');
  const routes: Route[] = Object.entries(doc.paths as Record<string, Record<string, Json>>).map(
    ([path, operations]) => ({
      path,
      pattern: new RegExp(
        '^' + path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+') + '/?$',
      ),
      params: (path.match(/\{/g) ?? []).length,
      operations,
    }),
  );
  routes.sort((a, b) => a.params - b.params);
  const components = isObject(doc.components) ? doc.components : {};
  const schemas = isObject(components.schemas) ? components.schemas : {};
  return { routes, schemas };
}

function validator(c: Checker, schema: unknown): ValidateFunction {
  const full = withDefs(schema, c.schemas);
  const key = JSON.stringify(full);
  let v = validators.get(key);
  if (!v) {
    v = ajv.compile(full);
    validators.set(key, v);
  }
  return v;
}

/** Why the answer is not what the document says, or null when it is. */
export function errorAnswerProblem(document: () => unknown, answer: ErrorAnswer): string | null {
  const doc = document();
  if (!isObject(doc)) throw new Error('openapi-check: no document');
  let c = checkers.get(doc);
  if (!c) {
    c = build(doc);
    checkers.set(doc, c);
  }
  const path = answer.url.split('?')[0]!;
  const method = answer.method.toLowerCase();
  const route = c.routes.find((r) => r.pattern.test(path));
  const op = route?.operations[method === 'head' ? 'get' : method];
  const name = `${answer.method} ${route?.path ?? path}`;
  const where = `${name} answered ${answer.status}`;

  if (!route || !op) {
    // No operation: an unknown path (404) or a method the path does not take (405). These
    // cannot be listed on an operation, but they are still the one error envelope.
    const ok = validator(c, { $ref: '#/components/schemas/Error' });
    if (!ok(answer.body)) return `${where} (no such operation): ${ajv.errorsText(ok.errors)}`;
    const code = (answer.body as { error: { code: keyof typeof ERROR_CATALOG } }).error.code;
    if (!['not_found', 'method_not_allowed'].includes(code)) {
      return `${where} (no such operation in /openapi.json) with ${code}; only not_found or method_not_allowed may answer an undocumented route`;
    }
    if (ERROR_CATALOG[code].status !== answer.status) {
      return `${where} with ${code}, whose status is ${ERROR_CATALOG[code].status}`;
    }
    return null;
  }

  const responses = isObject(op.responses) ? op.responses : {};
  const response = responses[String(answer.status)];
  const code = isObject(answer.body) && isObject(answer.body.error) ? answer.body.error.code : null;
  if (!isObject(response)) {
    return `${where} (${String(code)}), but the operation ${String(op.operationId)} does not list ${answer.status} in /openapi.json`;
  }
  const content = isObject(response.content) ? response.content : {};
  const mediaType = answer.type.split(';')[0]!.trim();
  if (mediaType !== 'application/json') {
    // A page (the sign-in link's refusal): its media type must be one the status declares.
    if (mediaType in content) return null;
    return `${where} as ${mediaType}, which ${String(op.operationId)} does not declare for ${answer.status}`;
  }
  const media = content['application/json'];
  if (!isObject(media) || !media.schema) {
    return `${where}, but ${answer.status} of ${String(op.operationId)} has no JSON body schema`;
  }
  const examples = isObject(media.examples) ? media.examples : {};
  if (typeof code !== 'string' || !(code in examples)) {
    return `${where} with ${String(code)}, which ${String(op.operationId)} does not declare for ${answer.status} (declared: ${Object.keys(examples).join(', ')})`;
  }
  const ok = validator(c, media.schema);
  if (!ok(answer.body)) {
    return `${where} with a body that does not match its schema: ${ajv.errorsText(ok.errors)}`;
  }
  return null;
}

/** The parts of an injected response the check reads. */
export interface InjectedResponse {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

/** Throws when the answer is not documented; tallies checked answers when asked to. */
export function checkErrorAnswer(
  document: () => unknown,
  method: string,
  url: string,
  res: InjectedResponse,
): void {
  let body: unknown = null;
  try {
    body = JSON.parse(res.body);
  } catch {
    // Not JSON: only a page may answer so, which errorAnswerProblem checks by its media type.
  }
  const type = String(res.headers['content-type'] ?? '');
  const answer = { method, url, status: res.statusCode, type, body };
  const problem = errorAnswerProblem(document, answer);
  if (problem) throw new Error(`openapi.json does not describe this error answer: ${problem}`);
  // PARLEY_OPENAPI_TALLY=<file>: one line per checked answer, to count them across workers.
  const tally = process.env.PARLEY_OPENAPI_TALLY;
  if (tally) {
    const code = isObject(body) && isObject(body.error) ? String(body.error.code) : type;
    fs.appendFileSync(tally, `${method} ${url.split('?')[0]} ${res.statusCode} ${code}\n`);
  }
}
