/**
 * The CSV import's requests. The file goes up as it is on disk (a Blob body: the browser
 * streams it, and the core sniffs UTF-16 or Windows-1252 itself, which reading it as text here
 * would garble), and the column mapping rides in the query string (`map.*`, `skip`).
 *
 * It follows `send()` in client.ts (session headers, connection signals, error envelope); that
 * one takes only text bodies and fixed query parameters, hence this module.
 */
import type {
  ColumnMapping,
  ImportPreview,
  ImportProgressLine,
  ImportResult,
} from '../../../shared/schemas/index.ts';
import {
  apiBaseUrl,
  ApiRequestError,
  isAbortError,
  reportConnection,
  sessionEndedMessage,
  sessionHeaders,
} from './client.ts';

/** The mapping as query parameters: `map.phone` repeats, `skip` repeats. */
export function mappingParams(mapping: ColumnMapping): [string, string][] {
  const params: [string, string][] = mapping.phone.map((c) => ['map.phone', c]);
  for (const field of ['name', 'firstName', 'middleName', 'lastName', 'email', 'labels'] as const) {
    const column = mapping[field];
    if (column) params.push([`map.${field}`, column]);
  }
  for (const c of mapping.skip) params.push(['skip', c]);
  return params;
}

interface UploadOptions {
  params: [string, string][];
  accept: string;
  signal?: AbortSignal | undefined;
}

async function errorFrom(response: Response): Promise<ApiRequestError> {
  let envelope: { error?: Record<string, unknown> } | null;
  try {
    envelope = (await response.json()) as { error?: Record<string, unknown> };
  } catch {
    envelope = null;
  }
  const e = envelope?.error;
  if (!e || typeof e.message !== 'string') {
    return new ApiRequestError(
      response.status,
      'http_error',
      `The request failed (HTTP ${response.status}).`,
    );
  }
  return new ApiRequestError(
    response.status,
    typeof e.code === 'string' ? e.code : 'http_error',
    e.message,
    {
      ...(typeof e.param === 'string' ? { param: e.param } : {}),
      ...(typeof e.docs === 'string' ? { docs: e.docs } : {}),
      ...(e.details && typeof e.details === 'object'
        ? { details: e.details as Record<string, unknown> }
        : {}),
    },
  );
}

async function upload(file: Blob, options: UploadOptions): Promise<Response> {
  const url = new URL(apiBaseUrl() + '/api/contacts/import');
  for (const [name, value] of options.params) url.searchParams.append(name, value);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { ...sessionHeaders(), Accept: options.accept, 'Content-Type': 'text/csv' },
      body: file,
      signal: options.signal ?? null,
    });
  } catch (e) {
    if (isAbortError(e)) throw e;
    reportConnection('unreachable');
    throw new ApiRequestError(
      0,
      'network_error',
      'Cannot reach the Parley service. Check that it is running, then try again.',
    );
  }
  if (response.status === 401) {
    reportConnection('refused');
    throw new ApiRequestError(401, 'session_ended', sessionEndedMessage());
  }
  if (!response.ok) throw await errorFrom(response);
  reportConnection('reachable');
  return response;
}

/**
 * A dry run: the detected encoding, delimiter and columns, the mapping (the core's guess, or
 * `mapping` when given), the first rows and the counts the import would give. Writes nothing.
 */
export async function previewImport(
  file: Blob,
  mapping: ColumnMapping | null,
  signal?: AbortSignal,
): Promise<ImportPreview> {
  const params: [string, string][] = [
    ['dryRun', 'true'],
    ...(mapping ? mappingParams(mapping) : []),
  ];
  const response = await upload(file, { params, accept: 'application/json', signal });
  return (await response.json()) as ImportPreview;
}

interface StreamErrorLine {
  type: 'error';
  error?: { code?: string; message?: string };
}

export interface ImportFileOptions {
  mapping: ColumnMapping;
  groupId?: string | null;
  onProgress?: (processed: number, total: number) => void;
  signal?: AbortSignal;
}

/** Imports the file with the given mapping, reading the NDJSON progress lines as they come. */
export async function importFile(file: Blob, options: ImportFileOptions): Promise<ImportResult> {
  const params = mappingParams(options.mapping);
  if (options.groupId) params.push(['groupId', options.groupId]);
  const response = await upload(file, {
    params,
    accept: 'application/x-ndjson',
    signal: options.signal,
  });
  if ((response.headers.get('Content-Type') ?? '').includes('application/json') || !response.body) {
    return (await response.json()) as ImportResult;
  }

  let result: ImportResult | null = null;
  const handle = (line: string): void => {
    if (!line.trim()) return;
    let message: ImportProgressLine | StreamErrorLine;
    try {
      message = JSON.parse(line) as ImportProgressLine | StreamErrorLine;
    } catch {
      throw new ApiRequestError(
        response.status,
        'invalid_response',
        'The import answered garbled progress.',
      );
    }
    if (message.type === 'progress') options.onProgress?.(message.processed, message.total);
    else if (message.type === 'result') {
      const { type: _type, ...rest } = message;
      result = rest;
    } else {
      // A failure after the 200 header went out can only be reported inside the stream.
      throw new ApiRequestError(
        response.status,
        message.error?.code ?? 'import_failed',
        message.error?.message ?? 'The import failed.',
      );
    }
  };

  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    let newline = buffered.indexOf('\n');
    while (newline >= 0) {
      handle(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      newline = buffered.indexOf('\n');
    }
  }
  handle(buffered + decoder.decode());
  if (!result) {
    throw new ApiRequestError(
      response.status,
      'import_interrupted',
      'The import stopped before it reported a result. Nothing was imported unless the list shows it; reload to check.',
    );
  }
  return result;
}
