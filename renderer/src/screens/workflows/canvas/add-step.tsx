/** The panel's choice of a new step's type, for the path a "+" was pressed on. */
import { useEffect, useRef } from 'react';
import {
  STEP_TYPES,
  stepLabel,
  type StepType,
} from '../../../../../shared/workflow-steps/index.ts';
import { STEP_EDITORS } from '../steps/index.ts';

export function AddStep({
  where,
  onChoose,
}: {
  where: string;
  onChoose: (type: StepType) => void;
}) {
  const list = useRef<HTMLUListElement>(null);
  useEffect(() => list.current?.querySelector('button')?.focus(), [where]);
  return (
    <div className="wf-add-step" data-testid="wf-add-step">
      <header className="wf-panel-head">
        <h2>Add a step</h2>
        <p className="hint">{where.charAt(0).toUpperCase() + where.slice(1)}.</p>
      </header>
      <ul className="wf-add-choices" ref={list}>
        {STEP_TYPES.map((type) => (
          <li key={type}>
            <button
              type="button"
              className="wf-add-choice"
              onClick={() => onChoose(type)}
              data-testid={`wf-add-${type}`}
            >
              <span className="wf-choice-label">{stepLabel(type)}</span>
              <span className="hint">{STEP_EDITORS[type].hint}</span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
