import { useId, useMemo, useState } from 'react';
import { CLOUD_API_LIST_ROWS, LIST_LIMITS, rowCount } from '../../../../shared/list-rules.ts';
import { Dialog } from '../../components/dialog.tsx';
import { FormButtons } from '../../components/form-buttons.tsx';
import { plural } from '../../components/format.ts';
import {
  idsKept,
  planPaste,
  withPastedRows,
  type ListDraft,
  type SectionDraft,
} from './list-draft.ts';
import { parsePastedRows } from './paste-rows.ts';

/** Where the plan puts the rows, in a sentence: "10 go into section 1, 2 into a new section 2." */
function planText(s: number, plan: ReturnType<typeof planPaste>): string {
  const parts: string[] = [];
  if (plan.intoSection > 0) parts.push(`${plural(plan.intoSection, 'row')} into section ${s + 1}`);
  plan.newSections.forEach((n, i) => {
    parts.push(`${plural(n, 'row')} into a new section ${s + 2 + i}`);
  });
  return parts.length > 0 ? `${parts.join(', ')}.` : '';
}

/**
 * Rows pasted from a spreadsheet into one section: the text, then what will be added (a row a
 * line, and each line that can't be, with why) before anything changes.
 */
export function PasteRowsDialog({
  draft,
  section,
  onClose,
  onAdd,
}: {
  draft: ListDraft;
  section: number;
  onClose: () => void;
  onAdd: (sections: SectionDraft[], added: number) => void;
}) {
  const [text, setText] = useState('');
  const textId = useId();
  const parsed = useMemo(
    () => parsePastedRows(text, idsKept(draft, section)),
    [text, draft, section],
  );
  const plan = planPaste(draft, section, parsed.rows.length);
  const adding = parsed.rows.length - plan.left;
  const sections = useMemo(
    () => withPastedRows(draft, section, parsed.rows),
    [draft, section, parsed.rows],
  );
  const total = rowCount({ sections });

  return (
    <Dialog
      title={`Paste rows into section ${section + 1}`}
      onClose={onClose}
      size="large"
      testId="list-paste-dialog"
      footer={
        <FormButtons
          onCancel={onClose}
          onConfirm={() => onAdd(sections, adding)}
          disabled={adding === 0}
          testId="list-paste-add"
        >
          {adding > 0 ? `Add ${plural(adding, 'row')}` : 'Add rows'}
        </FormButtons>
      }
    >
      <div className="form-stack">
        <div className="field">
          <label htmlFor={textId}>Rows</label>
          <textarea
            id={textId}
            className="input textarea mono"
            rows={6}
            value={text}
            onChange={(event) => setText(event.target.value)}
            spellCheck={false}
            aria-describedby={`${textId}-hint`}
            data-testid="list-paste-text"
          />
          <p className="hint" id={`${textId}-hint`}>
            Copy cells from a spreadsheet, or type one row a line as CSV:{' '}
            <code>title, description, id</code> — description and id are optional (an id is made
            from the title). A first line naming the columns is skipped. Titles are at most{' '}
            {LIST_LIMITS.rowTitle} characters, descriptions {LIST_LIMITS.rowDescription}.
          </p>
        </div>

        <div aria-live="polite" className="list-paste-result" data-testid="list-paste-result">
          {parsed.rows.length > 0 ? (
            <>
              <p data-testid="list-paste-summary">
                <strong>{plural(adding, 'row')} will be added</strong>
                {adding > 0 ? `: ${planText(section, plan)}` : '.'}
                {parsed.header ? ' The header line is skipped.' : ''}
              </p>
              {plan.left > 0 ? (
                <p className="list-paste-warning" data-testid="list-paste-left">
                  {plural(plan.left, 'row')} won’t fit: a list has at most {LIST_LIMITS.sections}{' '}
                  sections of {LIST_LIMITS.rowsPerSection} rows.
                </p>
              ) : null}
              {total > CLOUD_API_LIST_ROWS ? (
                <p className="list-paste-warning" data-testid="list-paste-cloud">
                  The list will then have {total} rows: more than the {CLOUD_API_LIST_ROWS} the
                  WhatsApp Cloud API takes in a list, so live sends through it would be refused. The
                  simulated channel takes it.
                </p>
              ) : null}
              <div
                className="table-wrap table-wrap-scrolls list-paste-table"
                role="region"
                aria-label="Rows to add"
                // It scrolls: the keyboard reaches it.
                tabIndex={0}
              >
                <table className="table">
                  <caption className="visually-hidden">Rows to add</caption>
                  <thead>
                    <tr>
                      <th scope="col">Line</th>
                      <th scope="col">Row title</th>
                      <th scope="col">Description</th>
                      <th scope="col">Row ID</th>
                    </tr>
                  </thead>
                  <tbody>
                    {parsed.rows.map((row) => (
                      <tr key={row.line} data-testid="list-paste-row">
                        <td>{row.line}</td>
                        <td>{row.title}</td>
                        <td>{row.description || <span className="muted">—</span>}</td>
                        <td className="mono">{row.id}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          ) : text.trim() && parsed.errors.length === 0 ? (
            <p className="hint">No rows in the text yet.</p>
          ) : null}
          {parsed.errors.length > 0 ? (
            <div className="list-paste-errors" data-testid="list-paste-errors">
              <p>
                <strong>{plural(parsed.errors.length, 'line')} can’t be added</strong> (fix{' '}
                {parsed.errors.length === 1 ? 'it' : 'them'} in the text above, or add the others
                without {parsed.errors.length === 1 ? 'it' : 'them'}):
              </p>
              <ul>
                {parsed.errors.map((error) => (
                  <li key={`${error.line}-${error.message}`} data-testid="list-paste-error">
                    {error.message}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
        </div>
      </div>
    </Dialog>
  );
}
