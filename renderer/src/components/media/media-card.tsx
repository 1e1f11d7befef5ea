import type { ReactNode } from 'react';

/** A card in a bubble (a location, a shared contact): a round icon beside its facts. */
export function MediaCard({
  as: Tag = 'div',
  icon,
  className,
  testId,
  children,
}: {
  as?: 'div' | 'li';
  icon: ReactNode;
  className: string;
  testId: string;
  children: ReactNode;
}) {
  return (
    <Tag className={`media-card ${className}`} data-testid={testId}>
      <span className="media-card-icon" aria-hidden="true">
        {icon}
      </span>
      <div className="media-card-facts">{children}</div>
    </Tag>
  );
}
