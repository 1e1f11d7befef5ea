import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { MoreIcon } from './icons.tsx';

export interface MenuItem {
  label: string;
  onSelect: () => void;
  danger?: boolean;
  disabled?: boolean;
  hint?: string;
  testId?: string;
}

export interface MenuSection {
  heading?: ReactNode;
  items: MenuItem[];
}

/** A row's "⋯" menu: opens below its button, closes on Escape, outside click or a choice. */
export function RowMenu({
  label,
  sections,
  testId,
}: {
  label: string;
  sections: MenuSection[];
  testId?: string;
}) {
  // Fixed position from the trigger, so table and card overflow never clip the menu.
  const [position, setPosition] = useState<{ top: number; right: number } | null>(null);
  const open = position !== null;
  const rootRef = useRef<HTMLDivElement>(null);
  const close = () => setPosition(null);
  const toggle = () => {
    if (open) return close();
    const rect = rootRef.current?.getBoundingClientRect();
    if (rect) setPosition({ top: rect.bottom + 4, right: window.innerWidth - rect.right });
  };
  const menuId = useId();

  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (!rootRef.current?.contains(event.target as Node)) setPosition(null);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setPosition(null);
    };
    const onScroll = () => setPosition(null);
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey);
    window.addEventListener('scroll', onScroll, true);
    window.addEventListener('resize', onScroll);
    rootRef.current?.querySelector<HTMLButtonElement>('[role="menuitem"]:not(:disabled)')?.focus();
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey);
      window.removeEventListener('scroll', onScroll, true);
      window.removeEventListener('resize', onScroll);
    };
  }, [open]);

  const visible = sections.filter((s) => s.items.length > 0);

  return (
    <div className="menu-root" ref={rootRef}>
      <button
        type="button"
        className="icon-button menu-trigger"
        aria-label={label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={toggle}
        data-testid={testId}
      >
        <MoreIcon />
      </button>
      {open ? (
        <div className="menu" role="menu" id={menuId} style={position}>
          {visible.map((section, i) => (
            <div key={i} className="menu-section">
              {section.heading ? <div className="menu-heading">{section.heading}</div> : null}
              {section.items.map((item) => (
                <button
                  key={item.label}
                  type="button"
                  role="menuitem"
                  className={`menu-item${item.danger ? ' menu-item-danger' : ''}`}
                  disabled={item.disabled}
                  title={item.hint}
                  data-testid={item.testId}
                  onClick={() => {
                    close();
                    item.onSelect();
                  }}
                >
                  {item.label}
                </button>
              ))}
            </div>
          ))}
        </div>
      ) : null}
    </div>
  );
}
