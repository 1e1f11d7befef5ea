#!/usr/bin/env node
// The `parley` command. The TypeScript sources are bundled by `npm install` (main/scripts/build.mjs).
import fs from 'node:fs';

const bundle = new URL('../../.build/main/cli.mjs', import.meta.url);
if (!fs.existsSync(bundle)) {
  process.stderr.write(
    'parley: not built yet; run `npm install` (or `npm run build`) in the Parley folder\n',
  );
  process.exit(1);
}
await import(bundle.href);
