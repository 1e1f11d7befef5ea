/**
 * Reads the core's /openapi.json into the playground's endpoint list, and builds an example
 * request body from a request schema: required fields with placeholder values.
 */

export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  example?: unknown;
  examples?: unknown[];
  format?: string;
  minimum?: number;
  description?: string;
};

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description: string | undefined;
  schema: JsonSchema;
}

export interface Endpoint {
  /** `POST /api/send` */
  key: string;
  method: string;
  path: string;
  tag: string;
  summary: string;
  description: string | undefined;
  pathParams: Parameter[];
  queryParams: Parameter[];
  /** The JSON request body's schema, or null when the endpoint takes none. */
  body: JsonSchema | null;
  /** The body is not JSON (e.g. CSV import); the playground can only show it. */
  bodyContentType: string | null;
}

export interface EndpointGroup {
  tag: string;
  endpoints: Endpoint[];
}

interface OpenApiDoc {
  paths?: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, JsonSchema> };
  tags?: { name: string }[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const METHOD_ORDER: Record<string, number> = { GET: 0, POST: 1, PUT: 2, PATCH: 3, DELETE: 4 };

type Resolver = (schema: JsonSchema | undefined) => JsonSchema;

function resolver(doc: OpenApiDoc): Resolver {
  const resolve: Resolver = (schema) => {
    let current = schema ?? {};
    for (let hops = 0; current.$ref && hops < 10; hops++) {
      const name = current.$ref.replace(/^#\/components\/schemas\//, '');
      current = doc.components?.schemas?.[name] ?? {};
    }
    return current;
  };
  return resolve;
}

/** Inlines every `$ref`, so examples and labels never need the document again. */
function derefDeep(schema: JsonSchema | undefined, resolve: Resolver, depth = 0): JsonSchema {
  const current = resolve(schema);
  if (depth > 8) return current;
  const next = (s: JsonSchema | undefined) => derefDeep(s, resolve, depth + 1);
  const out: JsonSchema = { ...current };
  if (current.properties) {
    out.properties = Object.fromEntries(
      Object.entries(current.properties).map(([k, v]) => [k, next(v)]),
    );
  }
  if (current.items) out.items = next(current.items);
  if (current.additionalProperties && typeof current.additionalProperties === 'object') {
    out.additionalProperties = next(current.additionalProperties);
  }
  if (current.anyOf) out.anyOf = current.anyOf.map(next);
  if (current.oneOf) out.oneOf = current.oneOf.map(next);
  if (current.allOf) out.allOf = current.allOf.map(next);
  return out;
}

/** `/api/templates/{id}` and `/api/templates/:id` both name the parameter `id`. */
export const pathParamNames = (path: string): string[] =>
  [...path.matchAll(/\{([^}]+)\}|:([A-Za-z_]\w*)/g)].map((m) => (m[1] ?? m[2])!);

export function parseEndpoints(raw: unknown): EndpointGroup[] {
  const doc = (raw ?? {}) as OpenApiDoc;
  const resolve = resolver(doc);
  const endpoints: Endpoint[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = item[method] as Record<string, unknown> | undefined;
      if (!op) continue;
      const params = ((op.parameters as Record<string, unknown>[] | undefined) ?? []).map(
        (p): Parameter => ({
          name: String(p.name),
          in: p.in as Parameter['in'],
          required: p.required === true,
          description: typeof p.description === 'string' ? p.description : undefined,
          schema: resolve(p.schema as JsonSchema | undefined),
        }),
      );
      const pathParams = params.filter((p) => p.in === 'path');
      for (const name of pathParamNames(path)) {
        if (!pathParams.some((p) => p.name === name)) {
          pathParams.push({ name, in: 'path', required: true, description: undefined, schema: {} });
        }
      }
      const content = (op.requestBody as { content?: Record<string, { schema?: JsonSchema }> })
        ?.content;
      const json = content?.['application/json'];
      const otherType = content ? Object.keys(content).find((t) => t !== 'application/json') : null;
      const tags = op.tags as string[] | undefined;
      endpoints.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        tag: tags?.[0] ?? 'Other',
        summary: typeof op.summary === 'string' ? op.summary : '',
        description: typeof op.description === 'string' ? op.description : undefined,
        pathParams,
        queryParams: params.filter((p) => p.in === 'query'),
        body: json ? derefDeep(json.schema, resolve) : null,
        bodyContentType: json ? null : (otherType ?? null),
      });
    }
  }

  const declared = (doc.tags ?? []).map((t) => t.name);
  const groups = new Map<string, Endpoint[]>();
  for (const tag of declared) groups.set(tag, []);
  for (const endpoint of endpoints) {
    if (!groups.has(endpoint.tag)) groups.set(endpoint.tag, []);
    groups.get(endpoint.tag)!.push(endpoint);
  }
  return [...groups.entries()]
    .filter(([, list]) => list.length > 0)
    .map(([tag, list]) => ({
      tag,
      endpoints: list.sort(
        (a, b) =>
          a.path.localeCompare(b.path) ||
          (METHOD_ORDER[a.method] ?? 9) - (METHOD_ORDER[b.method] ?? 9),
      ),
    }));
}

const PLACEHOLDER_PHONE = '+14155552671';

function placeholderString(name: string, schema: JsonSchema): string {
  const lower = name.toLowerCase();
  if (lower === 'phone' || lower.endsWith('phone') || lower === 'phonenumber')
    return PLACEHOLDER_PHONE;
  if (schema.format === 'email' || lower.endsWith('email')) return 'ada@example.com';
  if (schema.format === 'uri' || schema.format === 'url' || lower === 'url') {
    return 'https://example.com/webhook';
  }
  if (schema.format === 'date-time') return new Date().toISOString();
  return '';
}

const isNullSchema = (s: JsonSchema): boolean => s.type === 'null';

function mainType(schema: JsonSchema): string | undefined {
  if (Array.isArray(schema.type)) return schema.type.find((t) => t !== 'null') ?? schema.type[0];
  if (schema.type) return schema.type;
  if (schema.properties) return 'object';
  if (schema.items) return 'array';
  return undefined;
}

/** A map such as `variables` or `attributes`: no named properties, values by key. */
const isRecord = (schema: JsonSchema): boolean =>
  mainType(schema) === 'object' && !schema.properties && schema.additionalProperties !== false;

/**
 * An example value for a schema: required fields with placeholders (a phone gets a valid
 * E.164 number, a string ""), plus optional maps as `{}` so their shape shows, e.g.
 * POST /api/send → {"phone": "+14155552671", "templateName": "", "variables": {}}.
 */
export function exampleFor(schema: JsonSchema, name = '', depth = 0): unknown {
  if (schema.examples && schema.examples.length > 0) return schema.examples[0];
  if (schema.example !== undefined) return schema.example;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives && alternatives.length > 0) {
    const pick = alternatives.find((s) => !isNullSchema(s)) ?? alternatives[0]!;
    return exampleFor(pick, name, depth);
  }
  if (schema.allOf && schema.allOf.length > 0) {
    const merged: JsonSchema = { type: 'object', properties: {}, required: [] };
    for (const part of schema.allOf) {
      Object.assign(merged.properties!, part.properties ?? {});
      merged.required!.push(...(part.required ?? []));
    }
    return exampleFor(merged, name, depth);
  }
  switch (mainType(schema)) {
    case 'object': {
      const out: Record<string, unknown> = {};
      if (depth > 5) return out;
      const required = new Set(schema.required ?? []);
      for (const [key, child] of Object.entries(schema.properties ?? {})) {
        if (required.has(key)) out[key] = exampleFor(child, key, depth + 1);
        else if (isRecord(child)) out[key] = {};
      }
      return out;
    }
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return schema.minimum !== undefined && schema.minimum > 0 ? schema.minimum : 0;
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'string':
      return placeholderString(name, schema);
    default:
      return null;
  }
}

export function exampleBody(endpoint: Endpoint): string {
  if (!endpoint.body) return '';
  return JSON.stringify(exampleFor(endpoint.body), null, 2);
}

/** Fills `{id}` (or `:id`) with the given values, URL-encoded. */
export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(
    /\{([^}]+)\}|:([A-Za-z_]\w*)/g,
    (_, a: string | undefined, b: string | undefined) =>
      encodeURIComponent(values[(a ?? b)!] ?? ''),
  );
}

/** Puts a shell word in single quotes: `it's` → `'it'\''s'`. */
export const shellQuote = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;

export function curlCommand(options: {
  method: string;
  url: string;
  apiKey: string;
  body: string | undefined;
}): string {
  const lines = [
    `curl${options.method === 'GET' ? '' : ` -X ${options.method}`} ${shellQuote(options.url)}`,
    `-H ${shellQuote(`X-API-Key: ${options.apiKey}`)}`,
  ];
  if (options.body !== undefined) {
    let compact = options.body;
    try {
      compact = JSON.stringify(JSON.parse(options.body));
    } catch {
      // An invalid body is copied as typed: the API's invalid_json answer is the lesson.
    }
    lines.push(`-H ${shellQuote('Content-Type: application/json')}`, `-d ${shellQuote(compact)}`);
  }
  return lines.join(' \\\n  ');
}
