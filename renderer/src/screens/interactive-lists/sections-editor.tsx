import { useState } from 'react';
import { CountedField } from '../../components/counted-field.tsx';
import { FieldError } from '../../components/field-error.tsx';
import { CopyIcon, PlusIcon } from '../../components/icons.tsx';
import { AddButton, ItemTools, moved } from '../../components/item-tools.tsx';
import { plural } from '../../components/format.ts';
import { notify } from '../../stores/toasts.ts';
import {
  duplicateSection,
  fieldId,
  LIST_LIMITS,
  newRow,
  newSection,
  type ListDraft,
  type RowDraft,
  type SectionDraft,
} from './list-draft.ts';
import { PasteRowsDialog } from './paste-rows-dialog.tsx';

interface SectionsEditorProps {
  draft: ListDraft;
  errorFor: (param: string) => string | undefined;
  touch: (param: string) => void;
  /** A field of a section or row changed: `param` names it. */
  onEdit: (sections: SectionDraft[], param: string) => void;
  /** Sections or rows were added, removed or moved: indices changed. */
  onReshape: (sections: SectionDraft[]) => void;
}

/** The list's sections, each with its rows: add, remove, reorder, and their texts. */
export function SectionsEditor({ draft, errorFor, touch, onEdit, onReshape }: SectionsEditorProps) {
  const { sections } = draft;
  // The section rows are being pasted into, while the dialog is open.
  const [pasting, setPasting] = useState<number | null>(null);
  const listFull = sections.length >= LIST_LIMITS.sections;

  const editSection = (s: number, patch: Partial<SectionDraft>, param: string) =>
    onEdit(
      sections.map((section, i) => (i === s ? { ...section, ...patch } : section)),
      param,
    );
  const editRow = (s: number, r: number, key: 'id' | 'title' | 'description', value: string) =>
    editSection(
      s,
      {
        rows: sections[s]!.rows.map((row, i) => (i === r ? { ...row, [key]: value } : row)),
      },
      `sections.${s}.rows.${r}.${key}`,
    );
  const reshapeRows = (s: number, rows: RowDraft[]) =>
    onReshape(sections.map((section, i) => (i === s ? { ...section, rows } : section)));

  const rowField = (
    s: number,
    r: number,
    row: RowDraft,
    key: 'id' | 'title' | 'description',
    label: string,
    props: { max: number; placeholder: string; hint?: string; mono?: boolean },
  ) => {
    const param = `sections.${s}.rows.${r}.${key}`;
    return (
      <CountedField
        id={fieldId(param)}
        label={
          key === 'description' ? (
            <>
              {label} <span className="optional">(optional)</span>
            </>
          ) : (
            label
          )
        }
        value={row[key]}
        error={errorFor(param)}
        onChange={(value) => editRow(s, r, key, value)}
        onBlur={() => touch(param)}
        testId={fieldId(param)}
        {...props}
      />
    );
  };

  return (
    <div className="list-sections-editor">
      <ol className="list-section-drafts" id={fieldId('sections')}>
        {sections.map((section, s) => {
          const rowsParam = `sections.${s}.rows`;
          return (
            <li key={section.key} className="list-section-draft" data-testid="list-section-draft">
              <div className="list-draft-head">
                <span className="list-draft-label">Section {s + 1}</span>
                <button
                  type="button"
                  className="button button-small list-duplicate"
                  disabled={listFull}
                  title={
                    listFull ? `A list has at most ${LIST_LIMITS.sections} sections.` : undefined
                  }
                  aria-label={`Duplicate section ${s + 1}`}
                  onClick={() => onReshape(duplicateSection(draft, s))}
                  data-testid={`list-section-${s}-duplicate`}
                >
                  <CopyIcon />
                  Duplicate
                </button>
                <ItemTools
                  what={`section ${s + 1}`}
                  index={s}
                  count={sections.length}
                  onMove={(by) => onReshape(moved(sections, s, by))}
                  onRemove={() => {
                    touch('sections');
                    onReshape(sections.filter((_, i) => i !== s));
                  }}
                  testId={`list-section-${s}`}
                />
              </div>
              <CountedField
                id={fieldId(`sections.${s}.title`)}
                label="Section title"
                value={section.title}
                max={LIST_LIMITS.sectionTitle}
                error={errorFor(`sections.${s}.title`)}
                onChange={(title) => editSection(s, { title }, `sections.${s}.title`)}
                onBlur={() => touch(`sections.${s}.title`)}
                placeholder="e.g. Orders"
                testId={fieldId(`sections.${s}.title`)}
              />
              <ol className="list-row-drafts" id={fieldId(rowsParam)}>
                {section.rows.map((row, r) => (
                  <li key={row.key} className="list-row-draft" data-testid="list-row-draft">
                    <div className="list-draft-head">
                      <span className="list-draft-label">Row {r + 1}</span>
                      <ItemTools
                        what={`row ${r + 1} of section ${s + 1}`}
                        index={r}
                        count={section.rows.length}
                        onMove={(by) => reshapeRows(s, moved(section.rows, r, by))}
                        onRemove={() => {
                          touch(rowsParam);
                          reshapeRows(
                            s,
                            section.rows.filter((_, i) => i !== r),
                          );
                        }}
                        testId={`list-row-${s}-${r}`}
                      />
                    </div>
                    <div className="list-row-fields">
                      {rowField(s, r, row, 'title', 'Row title', {
                        max: LIST_LIMITS.rowTitle,
                        placeholder: 'e.g. Track my order',
                      })}
                      {rowField(s, r, row, 'id', 'Row ID', {
                        max: LIST_LIMITS.rowId,
                        placeholder: 'track-order',
                        hint: 'Comes back with the pick; unique in the list.',
                        mono: true,
                      })}
                    </div>
                    {rowField(s, r, row, 'description', 'Description', {
                      max: LIST_LIMITS.rowDescription,
                      placeholder: 'e.g. Where is my parcel?',
                    })}
                  </li>
                ))}
              </ol>
              <FieldError fieldId={fieldId(rowsParam)} message={errorFor(rowsParam)} />
              <div className="list-section-adds">
                <AddButton
                  label="Add row"
                  full={
                    section.rows.length >= LIST_LIMITS.rowsPerSection
                      ? `A section has at most ${LIST_LIMITS.rowsPerSection} rows.`
                      : null
                  }
                  onClick={() => reshapeRows(s, [...section.rows, newRow(draft)])}
                  testId={`list-section-${s}-add-row`}
                />
                <button
                  type="button"
                  className="button button-small"
                  aria-label={`Paste rows into section ${s + 1}`}
                  onClick={() => setPasting(s)}
                  data-testid={`list-section-${s}-paste`}
                >
                  <PlusIcon />
                  Paste rows
                </button>
              </div>
            </li>
          );
        })}
      </ol>
      <FieldError fieldId={fieldId('sections')} message={errorFor('sections')} />
      <AddButton
        label="Add section"
        full={
          sections.length >= LIST_LIMITS.sections
            ? `A list has at most ${LIST_LIMITS.sections} sections.`
            : null
        }
        onClick={() => onReshape([...sections, newSection(draft)])}
        testId="list-add-section"
      />
      {pasting !== null ? (
        <PasteRowsDialog
          draft={draft}
          section={pasting}
          onClose={() => setPasting(null)}
          onAdd={(next, added) => {
            setPasting(null);
            onReshape(next);
            notify('success', `Added ${plural(added, 'row')} from the paste.`);
          }}
        />
      ) : null}
    </div>
  );
}
