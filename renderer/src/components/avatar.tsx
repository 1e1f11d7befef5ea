import { initialsOf } from '../stores/agents.ts';

/** Soft background/foreground pairs; a name always gets the same one. */
const PALETTE = [
  ['#e0eaff', '#2f4fb6'],
  ['#dcfae6', '#067647'],
  ['#fef0c7', '#93370d'],
  ['#fce7f6', '#9e165f'],
  ['#e0f2fe', '#026aa2'],
  ['#ebe9fe', '#5925dc'],
  ['#fee4e2', '#b42318'],
  ['#f2f4f7', '#344054'],
] as const;

function hash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) | 0;
  return Math.abs(h);
}

interface AvatarProps {
  /** A person's name; initials are drawn from it. */
  name: string;
  /** What the colour is keyed on (an id), so two people of the same name still differ. */
  colorKey?: string;
  size?: 'small' | 'medium' | 'large';
  title?: string;
  testId?: string;
}

export function Avatar({ name, colorKey, size = 'medium', title, testId }: AvatarProps) {
  const [background, color] = PALETTE[hash(colorKey ?? name) % PALETTE.length]!;
  const digits = name.replace(/\D/g, '');
  // A phone number has no initials: its last two digits tell contacts apart instead.
  const text = /[\p{L}]/u.test(name) ? initialsOf(name) : digits.slice(-2) || '#';
  return (
    <span
      className={`avatar avatar-${size}`}
      style={{ background, color }}
      title={title}
      aria-hidden={title ? undefined : true}
      data-testid={testId}
    >
      {text}
    </span>
  );
}
