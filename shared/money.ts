/** Money is integer micro-units: 1 currency unit = 1,000,000 micros. Never floats. */
export const MICROS_PER_UNIT = 1_000_000;

/** Parses a decimal amount such as "25", "25.5" or "0.000001" into micros, exactly. */
export function parseAmountToMicros(input: string): number | null {
  const m = /^\s*(\d{1,9})(?:\.(\d{1,6}))?\s*$/.exec(input);
  if (!m) return null;
  const whole = Number(m[1]);
  const frac = Number((m[2] ?? '').padEnd(6, '0'));
  return whole * MICROS_PER_UNIT + frac;
}

/** Formats micros as a currency string: 25500000 → "$25.50" (more decimals only when needed). */
export function formatMicros(micros: number, currency = 'USD'): string {
  const negative = micros < 0;
  const abs = Math.abs(micros);
  const whole = Math.floor(abs / MICROS_PER_UNIT);
  let frac = String(abs % MICROS_PER_UNIT).padStart(6, '0');
  frac = frac.replace(/0+$/, '');
  if (frac.length < 2) frac = frac.padEnd(2, '0');
  const symbol = currency === 'USD' ? '$' : `${currency} `;
  const grouped = whole.toLocaleString('en-US');
  return `${negative ? '-' : ''}${symbol}${grouped}.${frac}`;
}
