import { useEffect, useMemo, useState } from 'react';
import { apiBaseUrl, errorMessage, sendWithApiKey, type Environment } from '../../api/client.ts';
import {
  curlCommand,
  exampleBody,
  fillPath,
  type Endpoint,
  type Parameter,
} from '../../api/openapi.ts';
import { Dialog } from '../../components/dialog.tsx';
import { EnvBadge } from '../../components/env-badge.tsx';
import { ErrorBanner } from '../../components/error-banner.tsx';
import { CopyIcon, SendIcon } from '../../components/icons.tsx';
import { PageHeader } from '../../components/page-header.tsx';
import { usePlayground, type PlaygroundEntry } from '../../stores/playground.ts';
import { notify } from '../../stores/toasts.ts';
import { EndpointList, MethodBadge } from './endpoint-list.tsx';
import { ResponseView, statusClass } from './response-view.tsx';

const DEFAULT_ENDPOINT = 'POST /api/send';

/** What a pasted key's prefix says (spec §5.3): test, live, or not a Parley key at all. */
export function keyEnvironment(key: string): Environment | 'unknown' | null {
  const trimmed = key.trim();
  if (!trimmed) return null;
  if (trimmed.startsWith('svc_test_')) return 'test';
  if (trimmed.startsWith('svc_live_')) return 'live';
  return 'unknown';
}

interface RequestForm {
  pathValues: Record<string, string>;
  queryValues: Record<string, string>;
  body: string;
}

const newForm = (endpoint: Endpoint): RequestForm => ({
  pathValues: {},
  queryValues: {},
  body: exampleBody(endpoint),
});

function jsonProblem(text: string): string | null {
  if (!text.trim()) return null;
  try {
    JSON.parse(text);
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : 'Not valid JSON';
  }
}

function requestPath(endpoint: Endpoint, form: RequestForm): string {
  const query = new URLSearchParams();
  for (const p of endpoint.queryParams) {
    const value = form.queryValues[p.name]?.trim();
    if (value) query.set(p.name, value);
  }
  const qs = query.toString();
  return fillPath(endpoint.path, form.pathValues) + (qs ? `?${qs}` : '');
}

const typeHint = (p: Parameter): string => {
  const s = p.schema;
  if (s.enum) return s.enum.join(' | ');
  const type = Array.isArray(s.type) ? s.type.filter((t) => t !== 'null').join(' | ') : s.type;
  return [type, s.default !== undefined ? `default ${String(s.default)}` : null]
    .filter(Boolean)
    .join(', ');
};

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

interface ParamRowProps {
  /** Path parameters are required (marked *); query parameters are optional. */
  kind: 'path' | 'query';
  name: string;
  value: string;
  placeholder: string | undefined;
  onChange: (value: string) => void;
}

function ParamRow({ kind, name, value, placeholder, onChange }: ParamRowProps) {
  return (
    <div className="param-row">
      <label htmlFor={`${kind}-${name}`} className="mono">
        {name}
        {kind === 'path' ? (
          <span className="required-mark" aria-label="required">
            *
          </span>
        ) : null}
      </label>
      <input
        id={`${kind}-${name}`}
        className="input mono"
        value={value}
        placeholder={placeholder}
        onChange={(event) => onChange(event.target.value)}
        data-testid={`${kind}-param-${name}`}
      />
    </div>
  );
}

export function PlaygroundScreen() {
  const groups = usePlayground((s) => s.groups);
  const specStatus = usePlayground((s) => s.specStatus);
  const specError = usePlayground((s) => s.specError);
  const loadSpec = usePlayground((s) => s.loadSpec);
  const history = usePlayground((s) => s.history);
  const record = usePlayground((s) => s.record);
  const clearHistory = usePlayground((s) => s.clearHistory);

  // The key lives only in this screen's state: never in a store, the history or storage.
  const [apiKey, setApiKey] = useState('');
  const [revealKey, setRevealKey] = useState(false);
  const [selectedKey, setSelectedKey] = useState<string | null>(null);
  const [forms, setForms] = useState<Record<string, RequestForm>>({});
  const [shownId, setShownId] = useState<number | null>(null);
  const [sending, setSending] = useState(false);
  const [curlFallback, setCurlFallback] = useState<string | null>(null);

  useEffect(() => {
    void loadSpec();
  }, [loadSpec]);

  const endpoints = useMemo(() => groups.flatMap((g) => g.endpoints), [groups]);
  const endpoint =
    endpoints.find((e) => e.key === selectedKey) ??
    endpoints.find((e) => e.key === DEFAULT_ENDPOINT) ??
    endpoints[0] ??
    null;
  const form: RequestForm | null = endpoint ? (forms[endpoint.key] ?? newForm(endpoint)) : null;

  const environment = keyEnvironment(apiKey);
  const bodyProblem = endpoint?.body && form ? jsonProblem(form.body) : null;
  const missingPath =
    endpoint && form ? endpoint.pathParams.filter((p) => !form.pathValues[p.name]?.trim()) : [];
  const shown: PlaygroundEntry | null = history.find((h) => h.id === shownId) ?? null;

  const updateForm = (patch: Partial<RequestForm>) => {
    if (!endpoint || !form) return;
    setForms((f) => ({ ...f, [endpoint.key]: { ...form, ...patch } }));
  };

  const send = async () => {
    if (!endpoint || !form || sending) return;
    const path = requestPath(endpoint, form);
    const body = endpoint.body && form.body.trim() ? form.body : undefined;
    setSending(true);
    let entry: PlaygroundEntry;
    const request = {
      endpointKey: endpoint.key,
      method: endpoint.method,
      path,
      environment: environment === 'test' || environment === 'live' ? environment : null,
      requestBody: body,
    };
    try {
      const response = await sendWithApiKey({
        method: endpoint.method,
        path,
        apiKey: apiKey.trim(),
        ...(body !== undefined ? { body } : {}),
      });
      entry = record({ ...request, response, error: null });
    } catch (e) {
      entry = record({ ...request, response: null, error: errorMessage(e) });
    } finally {
      setSending(false);
    }
    setShownId(entry.id);
  };

  const copyCurl = async () => {
    if (!endpoint || !form) return;
    const command = curlCommand({
      method: endpoint.method,
      url: apiBaseUrl() + requestPath(endpoint, form),
      apiKey: apiKey.trim() || 'YOUR_API_KEY',
      body: endpoint.body && form.body.trim() ? form.body : undefined,
    });
    if (await copyText(command)) notify('success', 'curl command copied.');
    else setCurlFallback(command);
  };

  const openEntry = (entry: PlaygroundEntry) => {
    setShownId(entry.id);
    setSelectedKey(entry.endpointKey);
    const target = endpoints.find((e) => e.key === entry.endpointKey);
    if (target && entry.requestBody !== undefined) {
      setForms((f) => ({
        ...f,
        [target.key]: { ...(f[target.key] ?? newForm(target)), body: entry.requestBody ?? '' },
      }));
    }
  };

  return (
    <div className="screen screen-wide" data-testid="screen-playground">
      <PageHeader
        eyebrow="Developers"
        title="API playground"
        description={
          <>
            Call this desk&apos;s local API with an API key, exactly as a script would: requests
            carry only <code>X-API-Key</code>. The key stays in this screen and is never saved.
          </>
        }
      />

      <section className="card key-card">
        <div className="field">
          <label htmlFor="playground-key">API key</label>
          <div className="key-row">
            <input
              id="playground-key"
              className={`input mono key-input${revealKey ? '' : ' masked'}${environment === 'unknown' ? ' invalid' : ''}`}
              value={apiKey}
              placeholder="svc_test_… or svc_live_…"
              autoComplete="off"
              spellCheck={false}
              onChange={(event) => setApiKey(event.target.value)}
              data-testid="playground-key"
            />
            <button type="button" className="button" onClick={() => setRevealKey((r) => !r)}>
              {revealKey ? 'Hide' : 'Show'}
            </button>
            <span className="key-env" data-testid="playground-key-env">
              {environment === 'test' || environment === 'live' ? (
                <EnvBadge environment={environment} />
              ) : null}
            </span>
          </div>
          {environment === null ? (
            <p className="hint">
              Paste a key from Settings → API keys. Test keys work on simulated data and never
              charge the wallet.
            </p>
          ) : null}
          {environment === 'unknown' ? (
            <p className="field-error">
              This does not look like a Parley key (<code>svc_test_…</code> or{' '}
              <code>svc_live_…</code>): the API will answer 401 invalid_api_key.
            </p>
          ) : null}
        </div>
        {environment === 'live' ? (
          <div className="banner banner-warning" role="note" data-testid="live-key-warning">
            Live key: requests act on live data, and every message sent deducts its price from the
            wallet.
          </div>
        ) : null}
      </section>

      {specStatus === 'error' && specError ? (
        <ErrorBanner message={specError} onRetry={() => void loadSpec()} />
      ) : null}

      <div className="playground-grid">
        <EndpointList
          groups={groups}
          selected={endpoint?.key ?? null}
          onSelect={(key) => setSelectedKey(key)}
        />

        <div className="playground-main">
          {endpoint && form ? (
            <section className="card request-card" data-testid="playground-request">
              <div className="request-title">
                <MethodBadge method={endpoint.method} />
                <code className="request-path" data-testid="playground-endpoint">
                  {endpoint.path}
                </code>
                {environment === 'test' || environment === 'live' ? (
                  <EnvBadge environment={environment} />
                ) : null}
              </div>
              {endpoint.summary ? <p className="request-summary">{endpoint.summary}</p> : null}
              {endpoint.description ? <p className="hint">{endpoint.description}</p> : null}

              {endpoint.pathParams.length > 0 ? (
                <div className="param-block">
                  <h3 className="param-title">Path parameters</h3>
                  {endpoint.pathParams.map((p) => (
                    <ParamRow
                      key={p.name}
                      kind="path"
                      name={p.name}
                      value={form.pathValues[p.name] ?? ''}
                      placeholder={p.description ?? typeHint(p) ?? ''}
                      onChange={(value) =>
                        updateForm({ pathValues: { ...form.pathValues, [p.name]: value } })
                      }
                    />
                  ))}
                </div>
              ) : null}

              {endpoint.queryParams.length > 0 ? (
                <details className="param-block" open={endpoint.method === 'GET'}>
                  <summary className="param-title">
                    Query parameters{' '}
                    <span className="muted small">({endpoint.queryParams.length}, optional)</span>
                  </summary>
                  {endpoint.queryParams.map((p) => (
                    <ParamRow
                      key={p.name}
                      kind="query"
                      name={p.name}
                      value={form.queryValues[p.name] ?? ''}
                      placeholder={typeHint(p)}
                      onChange={(value) =>
                        updateForm({ queryValues: { ...form.queryValues, [p.name]: value } })
                      }
                    />
                  ))}
                </details>
              ) : null}

              {endpoint.body ? (
                <div className="param-block">
                  <div className="body-head">
                    <h3 className="param-title">
                      Body <span className="muted small">application/json</span>
                    </h3>
                    <span
                      className={`json-state ${bodyProblem ? 'json-bad' : 'json-ok'}`}
                      data-testid="json-state"
                      title={bodyProblem ?? undefined}
                    >
                      {bodyProblem ? 'Invalid JSON' : form.body.trim() ? 'Valid JSON' : 'Empty'}
                    </span>
                    <button
                      type="button"
                      className="button button-small"
                      disabled={bodyProblem !== null || !form.body.trim()}
                      onClick={() =>
                        updateForm({ body: JSON.stringify(JSON.parse(form.body), null, 2) })
                      }
                    >
                      Format
                    </button>
                    <button
                      type="button"
                      className="button button-small"
                      onClick={() => updateForm({ body: exampleBody(endpoint) })}
                    >
                      Reset to example
                    </button>
                  </div>
                  <textarea
                    className={`input textarea code-input${bodyProblem ? ' invalid' : ''}`}
                    rows={Math.min(18, Math.max(6, form.body.split('\n').length + 1))}
                    value={form.body}
                    spellCheck={false}
                    aria-label="Request body (JSON)"
                    aria-invalid={bodyProblem ? true : undefined}
                    onChange={(event) => updateForm({ body: event.target.value })}
                    onKeyDown={(event) => {
                      if (event.key === 'Enter' && (event.metaKey || event.ctrlKey)) void send();
                    }}
                    data-testid="playground-body"
                  />
                  {bodyProblem ? (
                    <p className="field-error" data-testid="json-error">
                      {bodyProblem}
                    </p>
                  ) : null}
                </div>
              ) : endpoint.bodyContentType ? (
                <p className="hint">
                  This endpoint takes a <code>{endpoint.bodyContentType}</code> body, which the
                  playground cannot send. Use “Copy as curl” and add the file with{' '}
                  <code>--data-binary @file</code>.
                </p>
              ) : null}

              <div className="request-actions">
                <button
                  type="button"
                  className="button button-primary"
                  disabled={sending || bodyProblem !== null || missingPath.length > 0}
                  title={
                    missingPath.length > 0
                      ? `Fill in ${missingPath.map((p) => p.name).join(', ')}`
                      : bodyProblem
                        ? 'Fix the JSON body first'
                        : 'Send (Ctrl+Enter in the body)'
                  }
                  onClick={() => void send()}
                  data-testid="playground-send"
                >
                  <SendIcon />
                  {sending ? 'Sending…' : 'Send'}
                </button>
                <button
                  type="button"
                  className="button"
                  onClick={() => void copyCurl()}
                  data-testid="copy-curl"
                >
                  <CopyIcon />
                  Copy as curl
                </button>
                {environment === 'live' && endpoint.method !== 'GET' ? (
                  <span className="live-note">Live: this can charge the wallet.</span>
                ) : null}
                {environment === null ? (
                  <span className="muted small">Without a key the API answers 401.</span>
                ) : null}
              </div>
            </section>
          ) : (
            <section className="card empty-state">
              {specStatus === 'loading' || specStatus === 'idle'
                ? 'Loading the API reference…'
                : 'The API reference lists no endpoints.'}
            </section>
          )}

          {shown ? <ResponseView key={shown.id} entry={shown} /> : null}

          <section className="card card-flush">
            <div className="card-header">
              <h2 className="card-title">History</h2>
              <span className="muted small">
                This session only · the key is never kept
                {history.length > 0 ? (
                  <>
                    {' · '}
                    <button type="button" className="link-button" onClick={clearHistory}>
                      Clear
                    </button>
                  </>
                ) : null}
              </span>
            </div>
            {history.length === 0 ? (
              <p className="empty-state small">Requests you send appear here.</p>
            ) : (
              <ul className="history-list" data-testid="playground-history">
                {history.map((entry) => (
                  <li key={entry.id}>
                    <button
                      type="button"
                      className={`history-item${entry.id === shownId ? ' selected' : ''}`}
                      onClick={() => openEntry(entry)}
                      data-testid="history-item"
                    >
                      <MethodBadge method={entry.method} />
                      <code className="history-path truncate">{entry.path}</code>
                      {entry.environment ? <EnvBadge environment={entry.environment} /> : null}
                      <span
                        className={`status-pill ${entry.response ? statusClass(entry.response.status) : 'status-5xx'}`}
                      >
                        {entry.response?.status ?? '—'}
                      </span>
                      <span className="muted small history-time">
                        {entry.response ? `${entry.response.durationMs} ms` : 'failed'}
                      </span>
                    </button>
                  </li>
                ))}
              </ul>
            )}
          </section>
        </div>
      </div>

      {curlFallback ? (
        <Dialog
          title="Copy as curl"
          onClose={() => setCurlFallback(null)}
          size="large"
          footer={
            <button
              type="button"
              className="button button-primary"
              onClick={() => setCurlFallback(null)}
            >
              Done
            </button>
          }
        >
          <p className="hint">
            The clipboard is not available here: select the command and copy it.
          </p>
          <textarea
            className="input textarea code-input"
            rows={8}
            readOnly
            value={curlFallback}
            onFocus={(event) => event.target.select()}
            autoFocus
          />
        </Dialog>
      ) : null}
    </div>
  );
}
