// The floor: raw node:http + better-sqlite3 running the same SQL as the core for the benched
// routes (key lookup by hash, contacts page, contact upsert, template send), with no framework,
// no validation, no events and no background work.
import Database from 'better-sqlite3';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';

const db = new Database(path.join(process.argv[2], 'parley.db'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
db.pragma('busy_timeout = 5000');

const COLUMNS =
  'c.id, c.workspace_id, c.environment, c.phone, c.name, c.email, c.labels, c.attributes, c.created_at, c.updated_at, c.last_inbound_at';
const auth = db.prepare(
  'SELECT id, workspace_id, environment, prefix, last_used_at, revoked_at FROM api_keys WHERE key_hash = ?',
);
const iso = (col) => `strftime('%Y-%m-%dT%H:%M:%fZ', ${col} / 1000.0, 'unixepoch')`;
const CONTACT_JSON = `json_object('id', c.id, 'phone', c.phone, 'name', c.name, 'email', c.email,
  'labels', json(c.labels), 'attributes', json(c.attributes), 'createdAt', ${iso('c.created_at')},
  'updatedAt', ${iso('c.updated_at')}, 'lastInboundAt', ${iso('c.last_inbound_at')})`;
// The core's list SQL, verbatim: SQLite builds each item's JSON.
const list = db
  .prepare(
    `SELECT c.id, ${CONTACT_JSON} FROM contacts c WHERE c.workspace_id = @workspaceId AND c.environment = @environment AND (@cursor IS NULL OR c.id < @cursor) ORDER BY c.id DESC LIMIT @limit`,
  )
  .raw();
const byPhone = db.prepare(
  `SELECT ${COLUMNS} FROM contacts c WHERE c.workspace_id = ? AND c.environment = ? AND c.phone = ?`,
);
const insert = db.prepare(
  `INSERT INTO contacts (id, workspace_id, environment, phone, name, email, labels, attributes, created_at, updated_at)
   VALUES (@id, @workspace_id, @environment, @phone, @name, @email, @labels, @attributes, @created_at, @updated_at)`,
);
const deleteLabels = db.prepare('DELETE FROM contact_labels WHERE contact_id = ?');
const toJson = (r) => ({
  id: r.id,
  phone: r.phone,
  name: r.name,
  email: r.email,
  labels: JSON.parse(r.labels),
  attributes: JSON.parse(r.attributes),
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
  lastInboundAt: r.last_inbound_at === null ? null : new Date(r.last_inbound_at).toISOString(),
});
const create = db.transaction((p, phone, name) => {
  if (byPhone.get(p.workspace_id, p.environment, phone)) return null;
  const now = Date.now();
  const row = {
    id: 'ct_' + randomBytes(13).toString('hex'),
    workspace_id: p.workspace_id,
    environment: p.environment,
    phone,
    name,
    email: null,
    labels: '[]',
    attributes: '{}',
    created_at: now,
    updated_at: now,
    last_inbound_at: null,
  };
  insert.run(row);
  deleteLabels.run(row.id);
  return row;
});

// POST /api/send: the same reads and inserts as the core, in one transaction.
const templateByName = db.prepare(
  'SELECT * FROM templates WHERE workspace_id = ? AND environment = ? AND name = ?',
);
const account = db.prepare('SELECT * FROM business_accounts WHERE workspace_id = ? AND active = 1');
const conversationByContact = db.prepare(
  'SELECT * FROM conversations WHERE contact_id = ? AND business_account_id = ?',
);
const insertConversation = db.prepare(
  `INSERT INTO conversations (id, workspace_id, environment, contact_id, business_account_id, status, last_message_at, created_at, updated_at)
   VALUES (?, ?, ?, ?, ?, 'open', ?, ?, ?)`,
);
const countConversation = db.prepare(
  `INSERT INTO conversation_counts VALUES (?, ?, '', 'open', 1) ON CONFLICT DO UPDATE SET n = n + 1`,
);
const insertEvent = db.prepare(
  'INSERT INTO events (id, workspace_id, environment, type, data, created_at) VALUES (?, ?, ?, ?, ?, ?)',
);
const insertMessage = db.prepare(
  `INSERT INTO messages (id, workspace_id, environment, conversation_id, contact_id, phone, direction, type, template_name,
     text, variables, status, sent_by, category, cost_micros, channel_message_id, created_at)
   VALUES (?, ?, ?, ?, ?, ?, 'outbound', 'template', ?, ?, ?, 'accepted', 'api', ?, 0, ?, ?)`,
);
const touchConversation = db.prepare(
  'UPDATE conversations SET last_message_at = max(last_message_at, ?), updated_at = ? WHERE id = ?',
);
const insertJob = db.prepare(
  `INSERT INTO jobs (kind, payload, run_at, max_attempts, dedupe_key, created_at) VALUES ('message.dispatch', ?, ?, 6, NULL, ?)`,
);
const rid = (p) => p + '_' + randomBytes(13).toString('hex');
const sendTemplate = db.transaction((p, b) => {
  const tpl = templateByName.get(p.workspace_id, p.environment, b.templateName);
  const now = Date.now();
  let contact = byPhone.get(p.workspace_id, p.environment, b.phone);
  if (!contact) {
    contact = {
      id: rid('ct'),
      workspace_id: p.workspace_id,
      environment: p.environment,
      phone: b.phone,
      name: null,
      email: null,
      labels: '[]',
      attributes: '{}',
      created_at: now,
      updated_at: now,
      last_inbound_at: null,
    };
    insert.run(contact);
    deleteLabels.run(contact.id);
  }
  const acct = account.get(p.workspace_id);
  let conv = conversationByContact.get(contact.id, acct.id);
  if (!conv) {
    conv = { id: rid('conv') };
    insertConversation.run(
      conv.id,
      p.workspace_id,
      p.environment,
      contact.id,
      acct.id,
      now,
      now,
      now,
    );
    countConversation.run(p.workspace_id, p.environment);
    insertEvent.run(
      rid('evt'),
      p.workspace_id,
      p.environment,
      'conversation.created',
      JSON.stringify({ conversation: conv }),
      now,
    );
  }
  const text = JSON.parse(tpl.components)
    .find((c) => c.type === 'BODY')
    .text.replace(/\{\{(\d+)\}\}/g, (_, k) => b.variables[k]);
  const id = rid('msg');
  const wamid = 'wamid.' + randomBytes(24).toString('base64url');
  insertMessage.run(
    id,
    p.workspace_id,
    p.environment,
    conv.id,
    contact.id,
    b.phone,
    tpl.name,
    text,
    JSON.stringify(b.variables),
    tpl.category,
    wamid,
    now,
  );
  touchConversation.run(now, now, conv.id);
  insertJob.run(JSON.stringify({ messageId: id }), now, now);
  return {
    success: true,
    message: `Template message accepted for ${b.phone}`,
    data: {
      channelMessageId: wamid,
      phone: b.phone,
      templateName: tpl.name,
      contactId: contact.id,
      wabaId: acct.id,
    },
  };
});

const server = http.createServer((req, res) => {
  const key = req.headers['x-api-key'];
  const p = key && auth.get(createHash('sha256').update(key).digest('hex'));
  const send = (status, body) => {
    const s = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(s),
    });
    res.end(s);
  };
  if (!p || p.revoked_at !== null) return send(401, { error: { code: 'invalid_api_key' } });
  if (req.method === 'GET') {
    const rows = list.all({
      workspaceId: p.workspace_id,
      environment: p.environment,
      cursor: null,
      limit: 51,
    });
    const last = rows.length > 50 ? rows[49][0] : null;
    const next = last
      ? JSON.stringify(Buffer.from(JSON.stringify(last)).toString('base64url'))
      : 'null';
    return send(
      200,
      `{"data":[${rows
        .slice(0, 50)
        .map((r) => r[1])
        .join(',')}],"nextCursor":${next}}`,
    );
  }
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', () => {
    const b = JSON.parse(body);
    if (req.url === '/api/send') return send(200, sendTemplate(p, b));
    const row = create(p, b.phone, b.name ?? null);
    send(row ? 201 : 200, row ? toJson(row) : {});
  });
});
server.listen(0, '127.0.0.1', () =>
  console.log(`listening on http://127.0.0.1:${server.address().port}`),
);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
