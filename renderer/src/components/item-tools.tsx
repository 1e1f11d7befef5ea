/** The tools of an editor's ordered items (a list's sections and rows, a workflow's steps). */
import { ArrowDownIcon, ArrowUpIcon, CloseIcon, PlusIcon } from './icons.tsx';

/** Moves one item of a list up or down by one place (the same list at an end). */
export function moved<T>(items: T[], index: number, by: -1 | 1): T[] {
  const to = index + by;
  if (to < 0 || to >= items.length) return items;
  const next = items.slice();
  [next[index], next[to]] = [next[to]!, next[index]!];
  return next;
}

/** Move up, move down and remove, for one section or one row (`what`: "section 2", "step 3"). */
export function ItemTools({
  what,
  index,
  count,
  onMove,
  onRemove,
  testId,
}: {
  what: string;
  index: number;
  count: number;
  onMove: (by: -1 | 1) => void;
  onRemove: () => void;
  testId: string;
}) {
  const tools = [
    {
      name: 'up',
      label: `Move ${what} up`,
      icon: <ArrowUpIcon />,
      disabled: index === 0,
      act: () => onMove(-1),
    },
    {
      name: 'down',
      label: `Move ${what} down`,
      icon: <ArrowDownIcon />,
      disabled: index === count - 1,
      act: () => onMove(1),
    },
    {
      name: 'remove',
      label: `Remove ${what}`,
      icon: <CloseIcon />,
      disabled: false,
      act: onRemove,
    },
  ];
  return (
    <div className="list-draft-tools">
      {tools.map((tool) => (
        <button
          key={tool.name}
          type="button"
          className="icon-button"
          aria-label={tool.label}
          title={tool.label}
          disabled={tool.disabled}
          onClick={tool.act}
          data-testid={`${testId}-${tool.name}`}
        >
          {tool.icon}
        </button>
      ))}
    </div>
  );
}

/** An "Add …" button that says why it is disabled once the limit is reached. */
export function AddButton({
  label,
  full,
  onClick,
  testId,
}: {
  label: string;
  /** Why no more can be added, when the limit is reached. */
  full: string | null;
  onClick: () => void;
  testId: string;
}) {
  return (
    <div className="list-add">
      <button
        type="button"
        className="button button-small"
        disabled={full !== null}
        onClick={onClick}
        data-testid={testId}
      >
        <PlusIcon />
        {label}
      </button>
      {full ? <span className="hint">{full}</span> : null}
    </div>
  );
}
