// Seeds a data dir with an inbox at scale: N conversations (one contact each) and M messages,
// in the real schema (migrations applied by the CLI), with FTS kept in step by its triggers.
// Usage: node test/bench/seed-inbox.mjs DIR [conversations=100000] [messages=1000000]
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(root, 'main/cli/bin.mjs');

export function seedInbox(dir, conversations = 100_000, messages = 1_000_000) {
  const started = Date.now();
  const key = JSON.parse(
    execFileSync(
      process.execPath,
      [BIN, 'keys', 'create', '--env', 'test', '--name', 'bench', '--json', '--data-dir', dir],
      {
        encoding: 'utf8',
      },
    ),
  );
  const db = new Database(path.join(dir, 'parley.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF'); // seeding only
  const ws = key.workspaceId;
  const account = db
    .prepare('SELECT id FROM business_accounts WHERE workspace_id = ? AND active = 1')
    .pluck()
    .get(ws);
  const agents = ['agt_bench_ann', 'agt_bench_bob', 'agt_bench_cho'];
  // Agents are members who cannot sign in (migration 0017).
  const insertAgent = db.prepare(
    `INSERT INTO members (id, workspace_id, name, email, role, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'agent', 0, 0)`,
  );
  agents.forEach((a, i) => insertAgent.run(a, ws, ['Ann', 'Bob', 'Cho'][i], `${a}@example.com`));
  const contact = db.prepare(
    `INSERT INTO contacts (id, workspace_id, environment, phone, name, labels, attributes, created_at, updated_at, last_inbound_at)
     VALUES (?, ?, 'test', ?, ?, '[]', '{}', ?, ?, ?)`,
  );
  const conversation = db.prepare(
    `INSERT INTO conversations (id, workspace_id, environment, contact_id, business_account_id, status, assignee_id, labels,
       last_message_at, last_inbound_at, unread_count, created_at, updated_at)
     VALUES (?, ?, 'test', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const label = db.prepare(
    `INSERT INTO conversation_labels
       (conversation_id, conversation_rowid, workspace_id, environment, label, status, assignee_id, last_message_at)
     VALUES (@id, (SELECT rowid FROM conversations WHERE id = @id), @ws, 'test', @label, @status, @assignee, @at)`,
  );
  const message = db.prepare(
    `INSERT INTO messages (id, workspace_id, environment, conversation_id, contact_id, phone, direction, type, text,
       status, sent_by, created_at, sent_at, delivered_at, read_at)
     VALUES (?, ?, 'test', ?, ?, ?, ?, 'text', ?, ?, ?, ?, ?, ?, ?)`,
  );
  const WORDS =
    'order parcel refund delivery hello thanks invoice late broken size colour return address payment card tracking today tomorrow please help question price stock discount'.split(
      ' ',
    );
  const STATUSES = ['open', 'open', 'open', 'pending', 'snoozed', 'resolved', 'resolved'];
  const LABELS = ['vip', 'shipping', 'billing', 'returns'];
  let seed = 12345;
  const rand = (n) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return (seed >>> 16) % n; // the high bits: an LCG's low bits cycle quickly
  };
  const now = Date.now();
  const perConversation = Math.floor(messages / conversations);
  const pad = (n, w) => String(n).padStart(w, '0');
  // Index the message text in one pass at the end instead of row by row through the triggers.
  const ftsTriggers = db
    .prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND (name LIKE 'messages_fts_%' OR name LIKE 'contacts_fts_%')",
    )
    .all();
  db.transaction(() => {
    for (const t of ftsTriggers) db.exec(`DROP TRIGGER ${t.name}`);
    for (let c = 0; c < conversations; c++) {
      const contactId = `ct_0BENCH${pad(c, 20)}`;
      const convId = `conv_0BENCH${pad(c, 20)}`;
      const phone = `+4915${pad(c, 9)}`;
      const last = now - (conversations - c) * 1000;
      contact.run(contactId, ws, phone, `Customer ${c}`, last - 86_400_000, last, last);
      const labels = rand(5) === 0 ? [LABELS[rand(LABELS.length)]] : [];
      const assignee = rand(3) === 0 ? null : agents[rand(agents.length)];
      const status = STATUSES[rand(STATUSES.length)];
      conversation.run(
        convId,
        ws,
        contactId,
        account,
        status,
        assignee,
        JSON.stringify(labels),
        last,
        last,
        rand(4),
        last - 86_400_000,
        last,
      );
      for (const l of labels) label.run({ id: convId, ws, label: l, status, assignee, at: last });
      for (let m = 0; m < perConversation; m++) {
        const at = last - (perConversation - m) * 60_000;
        const inbound = m % 2 === 0;
        const text = Array.from({ length: 4 + rand(8) }, () => WORDS[rand(WORDS.length)]).join(' ');
        message.run(
          `msg_0BENCH${pad(c, 12)}${pad(m, 8)}`,
          ws,
          convId,
          contactId,
          phone,
          inbound ? 'inbound' : 'outbound',
          text,
          inbound ? 'received' : 'read',
          inbound ? 'contact' : 'agent',
          at,
          inbound ? null : at,
          inbound ? null : at,
          inbound ? null : at,
        );
      }
    }
    // The repo counts a conversation and a label row as it inserts them (migration 0013).
    db.exec(`INSERT INTO conversation_counts
      SELECT workspace_id, environment, coalesce(assignee_id, ''), status, count(*) FROM conversations
      WHERE true GROUP BY 1, 2, 3, 4 ON CONFLICT DO UPDATE SET n = excluded.n`);
    db.exec(`INSERT INTO conversation_label_counts
      SELECT workspace_id, environment, label, coalesce(assignee_id, ''), status, count(*) FROM conversation_labels
      WHERE true GROUP BY 1, 2, 3, 4, 5 ON CONFLICT DO UPDATE SET n = excluded.n`);
    db.exec("INSERT INTO messages_fts (messages_fts) VALUES ('rebuild')");
    db.exec("INSERT INTO contacts_fts (contacts_fts) VALUES ('rebuild')");
    for (const t of ftsTriggers) db.exec(t.sql);
  })();
  db.exec('ANALYZE');
  db.close();
  return {
    key: key.key,
    ms: Date.now() - started,
    conversations,
    messages: perConversation * conversations,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [dir, c, m] = process.argv.slice(2);
  if (!dir) {
    console.error('usage: node test/bench/seed-inbox.mjs DIR [conversations] [messages]');
    process.exit(2);
  }
  const r = seedInbox(path.resolve(dir), Number(c ?? 100_000), Number(m ?? 1_000_000));
  console.log(
    `seeded ${r.conversations} conversations and ${r.messages} messages in ${(r.ms / 1000).toFixed(1)} s; test key ${r.key}`,
  );
}
