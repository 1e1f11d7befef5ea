import { pathsOf } from './workflow-definition.ts';
import { stepName, type StepDraft } from './workflow-draft.ts';

/**
 * Where a step leads, drawn under its card: the flow's arrow to the following step, and a
 * labelled jump for every path that goes elsewhere (a branch's conditions, "otherwise", a
 * timeout, a `next` override) or ends the run.
 */
export function StepPaths({ steps, index }: { steps: readonly StepDraft[]; index: number }) {
  const paths = pathsOf(steps, index);
  if (paths.length === 0) {
    return (
      <p className="wf-path wf-path-end" data-testid="wf-path">
        <span className="wf-path-label">The run ends here.</span>
      </p>
    );
  }
  return (
    <ul className="wf-paths" aria-label={`Where step ${index + 1} leads`}>
      {paths.map((path, k) => (
        <li
          key={k}
          className={`wf-path${path.follows ? ' wf-path-follows' : ' wf-path-jump'}${path.target ? '' : ' wf-path-end'}`}
          data-testid="wf-path"
        >
          <span className="wf-path-arrow" aria-hidden="true">
            {path.follows ? '↓' : path.target ? '↪' : '■'}
          </span>
          <span className="wf-path-label">{path.label}</span>
          <span className="wf-path-target">
            {path.follows
              ? `continue to ${stepName(steps, path.target)}`
              : path.target
                ? `go to ${stepName(steps, path.target)}`
                : 'end the run'}
          </span>
        </li>
      ))}
    </ul>
  );
}
