import type { ReactNode } from 'react';
import type { Right } from '../../../shared/permissions.ts';
import { PlusIcon } from './icons.tsx';
import { useRightGate } from './needs-right.tsx';

interface ListIntroProps {
  title: string;
  /** What the feature is for, in a paragraph or two. */
  children: ReactNode;
  createLabel: string;
  onCreate: () => void;
  testId: string;
  createTestId: string;
  /** A class beside `list-intro`, for the screen's own styles. */
  className?: string;
  /** What creating needs: without it the button is disabled, saying why. */
  right: Right;
}

/** What a list shows before it has anything: what it is for, and a button to make the first. */
export function ListIntro({
  title,
  children,
  createLabel,
  onCreate,
  testId,
  createTestId,
  className,
  right,
}: ListIntroProps) {
  const { gate } = useRightGate(right);
  return (
    <div className={className ? `list-intro ${className}` : 'list-intro'} data-testid={testId}>
      <h2 className="card-title">{title}</h2>
      {children}
      <button
        type="button"
        className="button button-primary"
        {...gate}
        onClick={onCreate}
        data-testid={createTestId}
      >
        <PlusIcon />
        {createLabel}
      </button>
    </div>
  );
}
