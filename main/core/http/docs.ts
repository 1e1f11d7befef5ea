import { ERROR_CATALOG, ERROR_CODES } from '../../../shared/errors.ts';

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  description?: string;
  enum?: unknown[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  default?: unknown;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: JsonSchema;
  description?: string;
}

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  /** Shared headers (Idempotency-Key, …) are `$ref`s into `components.parameters`. */
  parameters?: (Parameter | { $ref: string })[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<
    string,
    { content?: Record<string, { schema?: JsonSchema; examples?: Record<string, unknown> }> }
  >;
}

export interface OpenApiDoc {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { parameters?: Record<string, Parameter> };
}

const esc = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** Tiny inline formatting for our own descriptions: `code` only. */
const fmt = (s: string) => esc(s).replace(/`([^`]+)`/g, '<code>$1</code>');

function typeOf(s: JsonSchema | undefined): string {
  if (!s) return '';
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (s.anyOf) return s.anyOf.map(typeOf).filter(Boolean).join(' | ');
  const t = Array.isArray(s.type) ? s.type.join(' | ') : (s.type ?? 'object');
  if (t === 'array') return `${typeOf(s.items)}[]`;
  return t;
}

function fieldsTable(schema: JsonSchema | undefined): string {
  const props = schema?.properties;
  if (!props || Object.keys(props).length === 0) return '';
  const req = new Set(schema.required ?? []);
  const rows = Object.entries(props)
    .map(
      ([name, s]) =>
        `<tr><td><code>${esc(name)}</code></td><td>${esc(typeOf(s))}</td><td>${req.has(name) ? 'yes' : ''}</td><td>${fmt(s.description ?? '')}</td></tr>`,
    )
    .join('');
  return `<table><thead><tr><th>field</th><th>type</th><th>required</th><th>notes</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** Each error status of an operation with its codes (openapi.ts names an example per code). */
function errorsList(op: Operation): string {
  const items = Object.entries(op.responses ?? {})
    .filter(([status]) => Number(status) >= 400)
    .map(([status, r]) => {
      const codes = Object.keys(r.content?.['application/json']?.examples ?? {});
      const links = codes.map((c) => `<a href="#${esc(c)}"><code>${esc(c)}</code></a>`);
      return `<li>${esc(status)}: ${links.join(', ')}</li>`;
    })
    .join('');
  return items ? `<h4>Errors</h4><ul class="errs">${items}</ul>` : '';
}

/** The human API reference at /docs: readable without JavaScript, every error code anchored. */
export function renderDocs(doc: OpenApiDoc): string {
  const byTag = new Map<string, string[]>();
  const shared = doc.components?.parameters ?? {};
  const resolve = (x: Parameter | { $ref: string }): Parameter | undefined =>
    '$ref' in x ? shared[x.$ref.split('/').pop()!] : x;
  for (const [p, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const tag = op.tags?.[0] ?? 'Other';
      const params = (op.parameters ?? [])
        .map(resolve)
        .filter((x): x is Parameter => x !== undefined)
        .map(
          (x) =>
            `<li><code>${esc(x.name)}</code> (${esc(x.in)}${x.required ? ', required' : ''}) ${esc(typeOf(x.schema))} ${fmt(x.schema?.description ?? x.description ?? '')}</li>`,
        )
        .join('');
      const body = op.requestBody?.content;
      const bodyType = body ? Object.keys(body)[0] : undefined;
      const ok = Object.entries(op.responses ?? {}).find(([code]) => code.startsWith('2'));
      const okSchema = ok?.[1].content?.['application/json']?.schema;
      const html = `<section class="op" id="${esc(method + '-' + p)}">
<h3><span class="m ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(p)}</code></h3>
<p>${fmt(op.summary ?? '')}</p>${op.description ? `<p>${fmt(op.description)}</p>` : ''}
${params ? `<h4>Parameters</h4><ul>${params}</ul>` : ''}
${bodyType ? `<h4>Request body <small>${esc(bodyType)}</small></h4>${fieldsTable(body![bodyType]!.schema)}` : ''}
${ok ? `<h4>Response ${esc(ok[0])}</h4>${fieldsTable(okSchema) || `<p>${esc(typeOf(okSchema) || Object.keys(ok[1].content ?? {}).join(', '))}</p>`}` : ''}
${errorsList(op)}
</section>`;
      byTag.set(tag, [...(byTag.get(tag) ?? []), html]);
    }
  }
  const errors = ERROR_CODES.map((code) => {
    const e = ERROR_CATALOG[code];
    return `<tr id="${code}"><td><code>${code}</code></td><td>${e.status}</td><td>${fmt(e.description)}</td></tr>`;
  }).join('');
  const toc = [...byTag.keys()].map((t) => `<a href="#tag-${esc(t)}">${esc(t)}</a>`).join(' · ');
  const sections = [...byTag.entries()]
    .map(([t, ops]) => `<h2 id="tag-${esc(t)}">${esc(t)}</h2>${ops.join('')}`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(doc.info.title)} reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#1f2933}
code{background:#f1f4f8;padding:0 .25em;border-radius:3px}table{border-collapse:collapse;width:100%;margin:.5rem 0}
td,th{border:1px solid #d9e2ec;padding:.3rem .5rem;text-align:left;vertical-align:top}th{background:#f5f7fa}
.op{border-top:1px solid #e4e7eb;padding:.5rem 0}.m{display:inline-block;min-width:4.5em;font-size:.8em;color:#fff;border-radius:3px;padding:0 .4em;text-align:center}
.get{background:#2f80ed}.post{background:#27ae60}.patch,.put{background:#f2994a}.delete{background:#eb5757}
tr:target{background:#fff7d6}.errs{font-size:.9em}
</style></head><body>
<h1>${esc(doc.info.title)} <small>v${esc(doc.info.version)}</small></h1>
<p>${fmt(doc.info.description ?? '')}</p>
<p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). Lists take <code>?limit=</code> (default 50, max 200) and <code>?cursor=</code> and answer <code>{ "data": [...], "nextCursor": string|null }</code>. POSTs accept an <code>Idempotency-Key</code> header (replayed for 24 h). Money is integer micros (1 unit = 1,000,000). Times are ISO 8601.</p>
<p>${toc} · <a href="#errors">Errors</a></p>
<h2 id="errors">Errors</h2>
<p>Every error answers <code>{ "error": { "code", "message", "docs", "param"?, "details"? } }</code>.</p>
<table><thead><tr><th>code</th><th>HTTP</th><th>meaning</th></tr></thead><tbody>${errors}</tbody></table>
${sections}
</body></html>`;
}
