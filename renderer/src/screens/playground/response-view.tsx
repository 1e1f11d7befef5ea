import { useState, type ReactNode } from 'react';
import { EnvBadge } from '../../components/env-badge.tsx';
import { Tab } from '../../components/tab.tsx';
import type { PlaygroundEntry } from '../../stores/playground.ts';
import { MethodBadge } from './endpoint-list.tsx';

export const statusClass = (status: number): string =>
  status >= 500
    ? 'status-5xx'
    : status >= 400
      ? 'status-4xx'
      : status >= 300
        ? 'status-3xx'
        : 'status-2xx';

const TOKEN =
  /("(?:\\u[a-fA-F0-9]{4}|\\[^u]|[^\\"])*"(\s*:)?|\b(?:true|false|null)\b|-?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)/g;

/** Pretty JSON with keys, strings, numbers and literals coloured. */
function highlight(json: string): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  for (const match of json.matchAll(TOKEN)) {
    const index = match.index ?? 0;
    if (index > last) out.push(json.slice(last, index));
    const token = match[0];
    const kind = token.startsWith('"')
      ? match[2]
        ? 'key'
        : 'string'
      : /true|false/.test(token)
        ? 'boolean'
        : token === 'null'
          ? 'null'
          : 'number';
    out.push(
      <span key={index} className={`json-${kind}`}>
        {token}
      </span>,
    );
    last = index + token.length;
  }
  if (last < json.length) out.push(json.slice(last));
  return out;
}

export function prettyBody(text: string): { text: string; json: boolean } {
  if (!text) return { text: '', json: false };
  try {
    return { text: JSON.stringify(JSON.parse(text), null, 2), json: true };
  } catch {
    return { text, json: false };
  }
}

const clock = new Intl.DateTimeFormat(undefined, {
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

export function ResponseView({ entry }: { entry: PlaygroundEntry }) {
  const [tab, setTab] = useState<'body' | 'headers'>('body');
  const response = entry.response;
  const body = prettyBody(response?.bodyText ?? '');

  return (
    <section className="card card-flush response-card" data-testid="playground-response">
      <div className="response-head">
        <div className="response-request">
          <MethodBadge method={entry.method} />
          <code className="response-path">{entry.path}</code>
          {entry.environment ? (
            <span data-testid="request-env">
              <EnvBadge environment={entry.environment} />
            </span>
          ) : (
            <span className="badge" data-testid="request-env">
              No key
            </span>
          )}
        </div>
        <div className="response-meta">
          {response ? (
            <>
              <span
                className={`status-pill ${statusClass(response.status)}`}
                data-testid="response-status"
              >
                {response.status} {response.statusText}
              </span>
              <span className="muted" data-testid="response-duration">
                {response.durationMs} ms
              </span>
            </>
          ) : (
            <span className="status-pill status-5xx" data-testid="response-status">
              No response
            </span>
          )}
          <span className="muted small">{clock.format(entry.at)}</span>
        </div>
      </div>
      {entry.error ? (
        <div className="banner banner-error response-error" role="alert">
          {entry.error}
        </div>
      ) : null}
      {response ? (
        <>
          <div className="tabs" role="tablist">
            <Tab selected={tab === 'body'} onSelect={() => setTab('body')}>
              Body
            </Tab>
            <Tab
              selected={tab === 'headers'}
              onSelect={() => setTab('headers')}
              testId="response-headers-tab"
            >
              Headers <span className="tab-count">{response.headers.length}</span>
            </Tab>
          </div>
          {tab === 'body' ? (
            <pre className="code-block response-body" data-testid="response-body">
              {body.text ? (
                body.json ? (
                  highlight(body.text)
                ) : (
                  body.text
                )
              ) : (
                <span className="muted">(empty body)</span>
              )}
            </pre>
          ) : (
            <table className="table table-compact headers-table" data-testid="response-headers">
              <tbody>
                {response.headers.map(([name, value]) => (
                  <tr key={name}>
                    <th scope="row" className="mono">
                      {name}
                    </th>
                    <td className="mono">{value}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      ) : null}
    </section>
  );
}
