import { main } from './index.ts';

main(process.argv.slice(2), {
  out: (s) => process.stdout.write(s + '\n'),
  err: (s) => process.stderr.write(s + '\n'),
  isTTY: Boolean(process.stderr.isTTY),
}).then((code) => {
  process.exitCode = code;
});
