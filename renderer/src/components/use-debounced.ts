import { useEffect, useRef } from 'react';

/** Reports what was typed once typing pauses for `delayMs`. */
export function useDebounced(
  value: string,
  onSettle: (value: string) => void,
  delayMs: number,
): void {
  const settle = useRef(onSettle);
  useEffect(() => {
    settle.current = onSettle;
  });
  useEffect(() => {
    const timer = window.setTimeout(() => settle.current(value), delayMs);
    return () => window.clearTimeout(timer);
  }, [value, delayMs]);
}
