import type { Rule } from 'eslint';
import { RuleTester } from 'eslint';
import path from 'node:path';
import tseslint from 'typescript-eslint';
import { describe, it } from 'vitest';
// @ts-expect-error: the lint rule is plain JavaScript beside the ESLint config.
import moduleBoundaries from '../../.config/eslint-rules/module-boundaries.js';

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } });
const rule = (moduleBoundaries as { rules: Record<string, Rule.RuleModule> }).rules[
  'no-foreign-repo'
]!;
const file = (p: string) => path.resolve('main/core/modules', p);

tester.run('parley/no-foreign-repo', rule, {
  valid: [
    { filename: file('messages/service.ts'), code: "import { messagesRepo } from './repo.ts';" },
    {
      filename: file('messages/send.ts'),
      code: "import type { ContactRow } from '../contacts/repo.ts';",
    },
    {
      filename: file('messages/send.ts'),
      code: "import { type ContactRow } from '../contacts/repo.ts';",
    },
    {
      filename: file('messages/send.ts'),
      code: "import { addressOf } from '../contacts/service.ts';",
    },
    {
      filename: file('conversations/repo.ts'),
      code: "import { CONTACT_JSON } from '../contacts/sql.ts';",
    },
    { filename: file('messages/service.ts'), code: 'const { repo } = ctx; repo.byId(id);' },
  ],
  invalid: [
    {
      filename: file('messages/service.ts'),
      code: "import { conversationsRepo } from '../conversations/repo.ts';",
      errors: [{ messageId: 'imports' }],
    },
    {
      filename: file('workflows/steps/send.ts'),
      code: "import { contactsRepo } from '../../contacts/repo.ts';",
      errors: [{ messageId: 'imports' }],
    },
    {
      filename: file('conversations/service.ts'),
      code: "import { CONTACT_JSON } from '../contacts/sql.ts';",
      errors: [{ messageId: 'sql' }],
    },
    {
      filename: file('channel/webhook.ts'),
      code: 'd.messages.repo.byChannelId(id);',
      errors: [{ messageId: 'reaches' }],
    },
    {
      filename: path.resolve('main/cli/index.ts'),
      code: 'services.campaigns.repo.get(id);',
      errors: [{ messageId: 'reaches' }],
    },
  ],
});
