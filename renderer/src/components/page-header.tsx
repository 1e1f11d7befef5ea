import type { ReactNode } from 'react';

interface PageHeaderProps {
  title: ReactNode;
  /** E.g. "badge" layouts: the title's class. */
  titleClassName?: string;
  /** The small line above the title (a section name, a way back). */
  eyebrow?: ReactNode;
  description: ReactNode;
  /** Buttons on the right. */
  actions?: ReactNode;
}

/** A screen's title, what it is for, and its main actions. */
export function PageHeader({
  title,
  titleClassName,
  eyebrow,
  description,
  actions,
}: PageHeaderProps) {
  return (
    <div className="page-header">
      <div>
        {eyebrow ? <p className="eyebrow">{eyebrow}</p> : null}
        <h1 className={titleClassName}>{title}</h1>
        <p className="page-description">{description}</p>
      </div>
      {actions ? <div className="page-actions">{actions}</div> : null}
    </div>
  );
}
