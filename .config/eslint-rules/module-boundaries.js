// Parley's module boundary (style.md: routes → services → repos; "no module reaching into another
// module's repo"). A module's repo.ts is its own: another module may import its types, never its
// statements, and never reaches into it through the owning service (`d.contacts.repo.byPhone`):
// the owning service gets a method instead. A module holds its own repo as a local (`repo`), so any
// `<something>.repo` is someone else's. A module's sql.ts (SQL fragments for joins, e.g. a contact
// as JSON) may be imported by other modules' repo files only.
import path from 'node:path';

const MODULE = /(?:^|\/)main\/core\/modules\/([^/]+)\//;
const REPO = /(?:^|\/)main\/core\/modules\/([^/]+)\/repo(?:\.ts)?$/;
const SQL = /(?:^|\/)main\/core\/modules\/([^/]+)\/sql(?:\.ts)?$/;

const ownModule = (filename) => MODULE.exec(filename.split(path.sep).join('/'))?.[1] ?? null;

/** The module whose repo.ts (or sql.ts) a relative import names, or null. */
function target(filename, source, file) {
  if (typeof source !== 'string' || !source.startsWith('.')) return null;
  const resolved = path.resolve(path.dirname(filename), source).split(path.sep).join('/');
  return file.exec(resolved)?.[1] ?? null;
}

const typeOnly = (node) =>
  node.importKind === 'type' ||
  node.exportKind === 'type' ||
  (node.specifiers?.length > 0 &&
    node.specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type'));

const noForeignRepo = {
  meta: {
    type: 'problem',
    docs: { description: "No module imports or reaches into another module's repo." },
    schema: [],
    messages: {
      imports:
        "{{from}} imports the {{repo}} module's repo: call a method of the {{repo}} service instead (types may be imported with `import type`).",
      sql: "Only repo files use another module's SQL fragments ({{repo}}/sql.ts).",
      reaches:
        "`{{object}}.repo` reaches into another module's repo: give the owning service a method and call that.",
    },
  },
  create(context) {
    const filename = context.filename;
    const own = ownModule(filename);
    const from = own ? `modules/${own}` : path.relative(process.cwd(), filename);
    const inRepo = /(?:^|[\\/])repo\.ts$/.test(filename);
    const check = (node, source) => {
      const repo = target(filename, source, REPO);
      if (repo && repo !== own)
        context.report({ node, messageId: 'imports', data: { from, repo } });
      const sql = target(filename, source, SQL);
      if (sql && sql !== own && !inRepo)
        context.report({ node, messageId: 'sql', data: { repo: sql } });
    };
    const checkSource = (node) => {
      if (node.source && !typeOnly(node)) check(node, node.source.value);
    };
    return {
      ImportDeclaration: checkSource,
      ExportNamedDeclaration: checkSource,
      ExportAllDeclaration: checkSource,
      ImportExpression(node) {
        if (node.source.type === 'Literal') check(node, node.source.value);
      },
      MemberExpression(node) {
        if (node.computed || node.property.type !== 'Identifier' || node.property.name !== 'repo')
          return;
        context.report({
          node,
          messageId: 'reaches',
          data: { object: context.sourceCode.getText(node.object) },
        });
      },
    };
  },
};

export default { rules: { 'no-foreign-repo': noForeignRepo } };
