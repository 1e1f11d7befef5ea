import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

interface DropdownProps {
  /** The trigger's content (text, icon, avatar). */
  trigger: ReactNode;
  /** The trigger's accessible name when its content is not enough. */
  label?: string;
  /** Which edge of the trigger the panel lines up with. */
  align?: 'left' | 'right';
  className?: string;
  disabled?: boolean;
  testId?: string;
  /** The panel's content; `close` shuts the panel (after a choice). */
  children: (close: () => void) => ReactNode;
}

/**
 * A button that opens a panel below it (menus, pickers). Fixed-positioned from the trigger so
 * no overflow clips it; closes on Escape, an outside click, scrolling or a choice.
 */
export function Dropdown({
  trigger,
  label,
  align = 'left',
  className = 'button button-small',
  disabled,
  testId,
  children,
}: DropdownProps) {
  const [position, setPosition] = useState<{
    top: number;
    left?: number;
    right?: number;
  } | null>(null);
  const open = position !== null;
  const rootRef = useRef<HTMLDivElement>(null);
  const panelId = useId();
  const close = () => setPosition(null);

  const toggle = () => {
    if (open) return close();
    const rect = rootRef.current?.getBoundingClientRect();
    if (!rect) return;
    setPosition(
      align === 'right'
        ? { top: rect.bottom + 4, right: window.innerWidth - rect.right }
        : { top: rect.bottom + 4, left: rect.left },
    );
  };

  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (!rootRef.current?.contains(event.target as Node)) setPosition(null);
    };
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') {
        event.stopPropagation();
        setPosition(null);
        rootRef.current?.querySelector<HTMLButtonElement>('.dropdown-trigger')?.focus();
      }
    };
    const onScroll = (event: Event) => {
      // Scrolling inside the panel itself (a long agent list) keeps it open.
      if (!rootRef.current?.contains(event.target as Node)) setPosition(null);
    };
    document.addEventListener('pointerdown', onPointer);
    document.addEventListener('keydown', onKey, true);
    window.addEventListener('scroll', onScroll, true);
    const onResize = () => setPosition(null);
    window.addEventListener('resize', onResize);
    rootRef.current
      ?.querySelector<HTMLElement>(
        '.dropdown-panel [role="menuitem"]:not(:disabled), .dropdown-panel input',
      )
      ?.focus();
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      document.removeEventListener('keydown', onKey, true);
      window.removeEventListener('scroll', onScroll, true);
      window.removeEventListener('resize', onResize);
    };
  }, [open]);

  return (
    <div className="dropdown" ref={rootRef}>
      <button
        type="button"
        className={`${className} dropdown-trigger`}
        aria-label={label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? panelId : undefined}
        disabled={disabled}
        onClick={toggle}
        data-testid={testId}
      >
        {trigger}
      </button>
      {open ? (
        <div className="menu dropdown-panel" role="menu" id={panelId} style={position}>
          {children(close)}
        </div>
      ) : null}
    </div>
  );
}

interface MenuButtonProps {
  onSelect: () => void;
  children: ReactNode;
  hint?: string;
  disabled?: boolean;
  danger?: boolean;
  checked?: boolean;
  testId?: string;
}

/** One choice in a dropdown's panel. */
export function MenuButton({
  onSelect,
  children,
  hint,
  disabled,
  danger,
  checked,
  testId,
}: MenuButtonProps) {
  return (
    <button
      type="button"
      role={checked === undefined ? 'menuitem' : 'menuitemradio'}
      aria-checked={checked}
      className={`menu-item${danger ? ' menu-item-danger' : ''}${checked ? ' menu-item-checked' : ''}`}
      disabled={disabled}
      title={hint}
      onClick={onSelect}
      data-testid={testId}
    >
      {children}
    </button>
  );
}
