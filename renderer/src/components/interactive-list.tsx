import { useEffect, useRef, type KeyboardEvent, type Ref } from 'react';
import type { ListSection } from '../../../shared/list-rules.ts';
import { CloseIcon, ListIcon } from './icons.tsx';
import './interactive-list.css';

/** What a phone shows of an interactive list besides its text: the button and the rows. */
export interface ListView {
  buttonText: string;
  sections: ListSection[];
}

interface ListButtonProps {
  text: string;
  /** Whether the rows it opens are showing (a sheet, or the rows below a sent message). */
  expanded: boolean;
  /** The id of what it opens. */
  controls: string;
  onClick: () => void;
  testId: string;
  ref?: Ref<HTMLButtonElement>;
}

/** The button under a list message's text, as WhatsApp draws it: it opens the list's rows. */
export function ListButton({ text, expanded, controls, onClick, testId, ref }: ListButtonProps) {
  return (
    <button
      ref={ref}
      type="button"
      className="wa-list-button"
      aria-expanded={expanded}
      aria-controls={expanded ? controls : undefined}
      onClick={onClick}
      data-testid={testId}
    >
      <ListIcon size={16} />
      <span className="truncate">{text.trim() || 'Button text'}</span>
    </button>
  );
}

/** A list's sections and rows, in order: each row's title, description and choice circle. */
export function ListSections({
  sections,
  id,
  testId,
}: {
  sections: ListSection[];
  id?: string;
  testId: string;
}) {
  return (
    <div className="wa-list-sections" id={id} data-testid={testId}>
      {sections.map((section, s) => (
        <div key={s} className="wa-list-section" data-testid="list-section">
          {section.title.trim() ? (
            <p className="wa-list-section-title" data-testid="list-section-title">
              {section.title}
            </p>
          ) : null}
          <ul className="wa-list-rows">
            {section.rows.map((row, r) => (
              <li key={r} className="wa-list-row" data-testid="list-row" data-row-id={row.id}>
                <span className="wa-list-row-text">
                  <span className="wa-list-row-title" data-testid="list-row-title">
                    {row.title.trim() || 'Row title'}
                  </span>
                  {row.description?.trim() ? (
                    <span className="wa-list-row-description">{row.description}</span>
                  ) : null}
                </span>
                <span className="wa-radio" aria-hidden="true" />
              </li>
            ))}
          </ul>
        </div>
      ))}
    </div>
  );
}

/**
 * The sheet a phone slides up when the list's button is tapped: the button's text as its title,
 * the rows, a way to close it. Takes the focus while open; Escape closes it.
 */
export function ListSheet({
  list,
  id,
  onClose,
}: {
  list: ListView;
  id: string;
  onClose: () => void;
}) {
  const close = useRef<HTMLButtonElement>(null);
  useEffect(() => close.current?.focus(), []);
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'Escape') return;
    event.stopPropagation();
    onClose();
  };
  const title = list.buttonText.trim() || 'Button text';
  return (
    <div className="wa-sheet-backdrop">
      <div
        className="wa-sheet"
        id={id}
        role="dialog"
        aria-label={title}
        onKeyDown={onKeyDown}
        data-testid="list-sheet"
      >
        <div className="wa-sheet-head">
          <button
            type="button"
            ref={close}
            className="wa-sheet-close"
            aria-label="Close the list"
            onClick={onClose}
            data-testid="list-sheet-close"
          >
            <CloseIcon />
          </button>
          <span className="wa-sheet-title" data-testid="list-sheet-title">
            {title}
          </span>
        </div>
        <ListSections sections={list.sections} testId="list-sheet-sections" />
        <p className="wa-sheet-foot">Tap an item to select it</p>
      </div>
    </div>
  );
}
