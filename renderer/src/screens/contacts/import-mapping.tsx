import { useId } from 'react';
import type { ColumnMapping } from '../../../../shared/schemas/index.ts';
import { SINGLE_IMPORT_FIELDS } from '../../../../shared/import-fields.ts';
import { useContactImport } from '../../stores/contact-import.ts';

type SingleField = (typeof SINGLE_IMPORT_FIELDS)[number];

const FIELDS: { field: 'phone' | SingleField; label: string; hint?: string }[] = [
  { field: 'phone', label: 'Phone', hint: 'required' },
  { field: 'name', label: 'Full name' },
  { field: 'firstName', label: 'First name', hint: 'used when there is no full name' },
  { field: 'middleName', label: 'Middle name' },
  { field: 'lastName', label: 'Last name' },
  { field: 'email', label: 'Email' },
  { field: 'labels', label: 'Labels', hint: 'separated by commas or semicolons' },
];

/** The columns neither mapped to a field nor a phone: stored as attributes unless skipped. */
function otherColumns(columns: string[], mapping: ColumnMapping): string[] {
  const used = new Set<string>([
    ...mapping.phone,
    ...SINGLE_IMPORT_FIELDS.map((f) => mapping[f]).filter((c): c is string => c !== null),
  ]);
  return columns.filter((c) => c && !used.has(c));
}

export function ImportMapping() {
  const baseId = useId();
  const columns = useContactImport((s) => s.columns);
  const mapping = useContactImport((s) => s.mapping);
  const preview = useContactImport((s) => s.preview);
  const rechecking = useContactImport((s) => s.rechecking);
  const problem = useContactImport((s) => s.problem);
  const setMapping = useContactImport((s) => s.setMapping);
  if (!mapping) return null;

  const others = otherColumns(columns, mapping);
  const keepOthers = others.some((c) => !mapping.skip.includes(c));

  const change = (field: 'phone' | SingleField, column: string) => {
    const next: ColumnMapping = { ...mapping };
    if (field === 'phone') next.phone = column ? [column] : [];
    else next[field] = column || null;
    // A column now mapped to a field is no longer an attribute to skip or keep.
    const stillOther = new Set(otherColumns(columns, next));
    next.skip = keepOthers ? mapping.skip.filter((c) => stillOther.has(c)) : [...stillOther];
    void setMapping(next);
  };

  const toggleOthers = (keep: boolean) => void setMapping({ ...mapping, skip: keep ? [] : others });

  const valueOf = (field: 'phone' | SingleField) =>
    field === 'phone' ? (mapping.phone[0] ?? '') : (mapping[field] ?? '');

  return (
    <section
      className="import-mapping form-stack"
      aria-label="Column mapping"
      data-testid="import-mapping"
    >
      <h3 className="section-title">Match the columns</h3>
      {preview ? (
        <p className="muted small" data-testid="import-detected">
          {preview.columns.length} columns, {labelOfDelimiter(preview.delimiter)}-separated,{' '}
          {preview.encoding.toUpperCase()}.{' '}
          {preview.guessed ? 'Columns were matched by their names; change any of them.' : null}
        </p>
      ) : null}
      <div className="table-wrap">
        <table className="table table-compact">
          <thead>
            <tr>
              <th scope="col">Parley field</th>
              <th scope="col">Column in the file</th>
            </tr>
          </thead>
          <tbody>
            {FIELDS.map(({ field, label, hint }) => {
              const id = `${baseId}-${field}`;
              return (
                <tr key={field}>
                  <td>
                    <label htmlFor={id}>
                      {label}
                      {hint ? <span className="optional"> ({hint})</span> : null}
                    </label>
                  </td>
                  <td>
                    <select
                      id={id}
                      className="select"
                      value={valueOf(field)}
                      onChange={(event) => change(field, event.target.value)}
                      data-testid={`import-map-${field}`}
                    >
                      <option value="">
                        {field === 'phone' ? '— choose a column —' : '— not imported —'}
                      </option>
                      {columns.map((c, i) => (
                        <option key={`${i}-${c}`} value={c}>
                          {c || `(column ${i + 1}, no name)`}
                        </option>
                      ))}
                    </select>
                    {field === 'phone' && mapping.phone.length > 1 ? (
                      <p className="hint">
                        When it is empty or not a valid number, also tried in turn:{' '}
                        {mapping.phone.slice(1).join(', ')}.
                      </p>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {others.length > 0 ? (
        <label>
          <input
            type="checkbox"
            checked={keepOthers}
            onChange={(event) => toggleOthers(event.target.checked)}
            data-testid="import-keep-others"
          />{' '}
          Keep the other columns as attributes ({others.length}: {others.slice(0, 6).join(', ')}
          {others.length > 6 ? '…' : ''})
        </label>
      ) : null}

      {problem ? (
        <p className="form-error" role="alert" data-testid="import-mapping-problem">
          {problem}
        </p>
      ) : null}

      {preview && preview.sample.length > 0 ? (
        <>
          <h3 className="section-title">First rows as they will be imported</h3>
          <div className="table-wrap">
            <table className="table table-compact" data-testid="import-preview">
              <thead>
                <tr>
                  <th scope="col" className="num">
                    Line
                  </th>
                  <th scope="col">Phone</th>
                  <th scope="col">Name</th>
                  <th scope="col">Email</th>
                  <th scope="col">Labels</th>
                </tr>
              </thead>
              <tbody>
                {/* The core's own reading of each row: what the import will store, or why not. */}
                {preview.sample.map((row) => (
                  <tr key={row.line} data-testid="import-preview-row">
                    <td className="num">{row.line}</td>
                    <td style={row.phone ? undefined : { color: 'var(--danger)' }}>
                      {row.phone ?? row.error}
                    </td>
                    <td>{row.name || <span className="muted">—</span>}</td>
                    <td>{row.email || <span className="muted">—</span>}</td>
                    <td>{row.labels.join(', ') || <span className="muted">—</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}

      <p className="muted" aria-live="polite" data-testid="import-check">
        {rechecking
          ? 'Checking the file…'
          : preview
            ? `${preview.total.toLocaleString('en-US')} rows: ${preview.valid.toLocaleString('en-US')} will be imported, ${preview.failed.toLocaleString('en-US')} have a problem${preview.errors[0] ? ` (first: line ${preview.errors[0].line}, ${preview.errors[0].reason})` : ''}.`
            : null}
      </p>
    </section>
  );
}

const labelOfDelimiter = (d: string) => (d === '\t' ? 'tab' : d === ';' ? 'semicolon' : 'comma');
