/**
 * The password rule (design.md §6), checked by the core on every set and by the UI as it is
 * typed: at least 12 characters, at most 256, and not one of the passwords people pick most
 * (a small bundled list, with the sequences and repeats that pass a length rule but no guess).
 */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

/** Well-known long passwords from public breach lists' top entries, lower-cased. */
const COMMON = new Set([
  '123456789012',
  '1234567890123',
  '12345678901234',
  '123456789123',
  '1234567891011',
  '111111111111',
  '000000000000',
  '123123123123',
  '121212121212',
  '112233445566',
  '147258369147',
  '987654321098',
  'password1234',
  'password12345',
  'password123456',
  'password1234567',
  'passwordpassword',
  'password123!',
  'password2024',
  'password2025',
  'password2026',
  'p@ssword1234',
  'p@ssw0rd1234',
  'passw0rd1234',
  'qwertyuiop12',
  'qwertyuiop123',
  'qwertyuiopas',
  'qwertyuiopasdf',
  'qwerty123456',
  'qwerty1234567',
  'qwertyqwerty',
  '1qaz2wsx3edc',
  '1q2w3e4r5t6y',
  'q1w2e3r4t5y6',
  'zaq12wsxcde3',
  'asdfghjkl123',
  "asdfghjkl;'",
  'zxcvbnm12345',
  'iloveyou1234',
  'iloveyouiloveyou',
  'welcome12345',
  'welcome123456',
  'letmein12345',
  'letmein123456',
  'adminadmin12',
  'administrator',
  'administrator1',
  'changeme1234',
  'changemenow!',
  'sunshine1234',
  'princess1234',
  'football1234',
  'baseball1234',
  'superman1234',
  'starwars1234',
  'trustno11234',
  'monkey123456',
  'dragon123456',
  'master123456',
  'abc123456789',
  'abcdefghijkl',
  'abcdefg12345',
  'abcd12345678',
  'aa1234567890',
  'whatsapp1234',
  'parley123456',
  'parleyparley',
  'customer1234',
  'support12345',
  'business1234',
  'company12345',
  'secret123456',
  'mypassword12',
  'mypassword123',
  'thisismypassword',
  'correcthorsebatterystaple',
]);

const SEQUENCES = ['0123456789', 'abcdefghijklmnopqrstuvwxyz', 'qwertyuiopasdfghjklzxcvbnm'];

/** Why a password is refused, in words for the person typing it, or null when it may be used. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN) return `Use at least ${PASSWORD_MIN} characters.`;
  if (password.length > PASSWORD_MAX) return `Use at most ${PASSWORD_MAX} characters.`;
  const lower = password.toLowerCase();
  if (COMMON.has(lower)) return 'This is one of the most common passwords: pick another.';
  if (new Set(lower).size <= 2) return 'Use more than two different characters.';
  const forward = SEQUENCES.some((s) => (s + s).includes(lower));
  const backward = SEQUENCES.some((s) => (s + s).split('').reverse().join('').includes(lower));
  if (forward || backward) return 'A run of keys or letters in order is easy to guess.';
  return null;
}
