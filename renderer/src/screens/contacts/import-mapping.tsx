import { useId } from 'react';
import { labelsFromCell } from '../../../../shared/labels.ts';
import { checkPhone } from '../../../../shared/phone.ts';
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

const splitMulti = (value: string) =>
  value
    .split(/\s*:::\s*/)
    .map((v) => v.trim())
    .filter(Boolean);

/** A sample row as the import would read it with this mapping (the core decides; this shows). */
function mapRow(columns: string[], values: string[], mapping: ColumnMapping) {
  const cell = (column: string | null) => {
    const at = column === null ? -1 : columns.indexOf(column);
    return at >= 0 ? (values[at] ?? '').trim() : '';
  };
  const candidates = mapping.phone.flatMap((c) => splitMulti(cell(c)));
  let phone: { ok: boolean; text: string } = { ok: false, text: 'no phone' };
  for (const candidate of candidates) {
    const checked = checkPhone(candidate);
    if (checked.ok) {
      phone = { ok: true, text: checked.phone };
      break;
    }
    if (!phone.text.startsWith('"'))
      phone = { ok: false, text: `"${candidate}": ${checked.reason}` };
  }
  const name =
    cell(mapping.name) ||
    [cell(mapping.firstName), cell(mapping.middleName), cell(mapping.lastName)]
      .filter(Boolean)
      .join(' ');
  const email = splitMulti(cell(mapping.email))[0] ?? '';
  const labels = labelsFromCell(cell(mapping.labels));
  return { phone, name, email, labels };
}

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
                {preview.sample.map((row) => {
                  const mapped = mapRow(preview.columns, row.values, mapping);
                  return (
                    <tr key={row.line} data-testid="import-preview-row">
                      <td className="num">{row.line}</td>
                      <td style={mapped.phone.ok ? undefined : { color: 'var(--danger)' }}>
                        {mapped.phone.text}
                      </td>
                      <td>{mapped.name || <span className="muted">—</span>}</td>
                      <td>{mapped.email || <span className="muted">—</span>}</td>
                      <td>{mapped.labels.join(', ') || <span className="muted">—</span>}</td>
                    </tr>
                  );
                })}
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
