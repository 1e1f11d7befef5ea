import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import moduleBoundaries from './eslint-rules/module-boundaries.js';

const restrict = (patterns) => ({
  'no-restricted-imports': ['error', { patterns }],
});

// Lives in .config/ (the top level holds only the project's fixed layout). Run with
// `eslint --config .config/eslint.config.js` from the repository root: file patterns below are
// relative to the working directory.
const configs = tseslint.config(
  { ignores: ['node_modules', '.build', 'dist', 'test-results', 'playwright-report'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
    },
  },
  // Boundaries (style.md): the core never imports electron or the renderer.
  {
    files: ['main/core/**/*.ts', 'main/cli/**/*.ts'],
    rules: restrict([
      {
        group: ['electron', 'electron/*'],
        message: 'main/core and the CLI never import electron.',
      },
      { group: ['**/renderer/**'], message: 'main/core never imports the renderer.' },
    ]),
  },
  // Modules (style.md): a module's repo is its own. Others import its service and its types,
  // never its repo.ts, and never reach into it through the service (`d.contacts.repo.byPhone`).
  {
    files: ['main/core/**/*.ts', 'main/cli/**/*.ts'],
    plugins: { parley: moduleBoundaries },
    rules: { 'parley/no-foreign-repo': 'error' },
  },
  // The renderer talks to the core only over HTTP: it never imports main/ or Node built-ins.
  {
    files: ['renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      ...restrict([
        { group: ['**/main/**'], message: 'The renderer talks to the core only over HTTP.' },
        {
          group: ['node:*', 'better-sqlite3', 'electron'],
          message: 'No Node or Electron in the renderer.',
        },
      ]),
    },
  },
  // shared/ is pure: no Node, no DOM, no app code.
  {
    files: ['shared/**/*.ts'],
    rules: restrict([
      {
        group: ['node:*', 'electron', 'better-sqlite3', 'fastify'],
        message: 'shared/ has no Node imports.',
      },
      {
        group: ['**/main/**', '**/renderer/**'],
        message: 'shared/ imports neither main nor renderer.',
      },
    ]),
  },
);

export default configs;
