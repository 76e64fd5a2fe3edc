/**
 * The floor of the governed write benchmark (`governed-write.ts`): a bare `node:http` server doing
 * by hand the least work a correct audited write needs, on the same driver and the same tables as
 * cellgate (the database is migrated by cellgate before this server starts, so both pay for the
 * same indexes and append-only triggers).
 *
 * Per request: read the body, `JSON.parse`, verify the HS256 JWT with jose, check the workspace
 * role, then one transaction:
 * - create: INSERT the row, INSERT its version state, INSERT the audit record (diff as JSON), INSERT
 *   the outbox event;
 * - PATCH (merge or JSON Patch `replace`): read the row, conditional `UPDATE … WHERE version = ?`
 *   (409 on a miss), INSERT version state, INSERT audit record, INSERT outbox event;
 * - GET: read the row; list: one page of 20 (newest first) and its count.
 * Answers `{ data, meta }` (with an `ETag` for one record). It checks no field types, and knows
 * only the benchmark's Task entity (`title` string, `done` boolean): what is left of cellgate's
 * work when everything general is taken away.
 *
 * Usage: tsx test/bench/governed-write-floor.ts <sqlite:file | postgres://…> <secret>; prints
 * `listening on <url>`.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { jwtVerify } from 'jose';

const [databaseUrl = '', secretText = ''] = process.argv.slice(2);
const secret = new TextEncoder().encode(secretText);
const TABLE = 'work_task_v1';
const RESOURCE_TYPE = 'work.Task@v1';
const COLUMNS = [
  'id',
  'tenant_id',
  'workspace_id',
  'cell_id',
  'version',
  'created_at',
  'created_by',
  'updated_at',
  'updated_by',
  'deleted_at',
  'deleted_by',
  'title',
  'done',
];

/** One stored row, as the driver gives it. */
type Row = Record<string, unknown>;

/** The statements of the floor, one implementation per driver. */
interface Db {
  create(row: Row, audit: unknown[], event: unknown[], state: unknown[]): Promise<void>;
  /** Reads, updates if the version matches (null on a miss), and appends; all in one transaction. */
  update(
    id: string,
    tenantId: string,
    workspaceId: string,
    expected: number,
    change: (row: Row) => Row | null,
    audit: (before: Row, after: Row) => unknown[][],
  ): Promise<Row | null | 'missing'>;
  get(id: string, tenantId: string, workspaceId: string): Promise<Row | undefined>;
  list(tenantId: string, workspaceId: string): Promise<{ rows: Row[]; total: number }>;
}

const AUDIT_SQL = (p: (n: number) => string) =>
  `INSERT INTO cellgate_audit_log (id, tenant_id, workspace_id, cell_id, actor_id, actor_type, event_type, resource_type, resource_id, resource_version, base_version, occurred_at, request_id, trace_id, ip, user_agent, change_kind, diff, snapshot, redaction_applied, tags, reason) VALUES (${range(22).map(p).join(', ')})`;
const STATE_SQL = (p: (n: number) => string) =>
  `INSERT INTO cellgate_version_state (resource_type, id, version, tenant_id, workspace_id, cell_id, state, recorded_at) VALUES (${range(8).map(p).join(', ')})`;
const EVENT_SQL = (p: (n: number) => string) =>
  `INSERT INTO cellgate_events (id, tenant_id, workspace_id, resource_type, payload, fanned_out) VALUES (${range(6).map(p).join(', ')})`;
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

async function sqliteDb(filename: string): Promise<Db> {
  const Database = createRequire(import.meta.url)('better-sqlite3') as new (
    file: string,
  ) => {
    pragma(text: string): unknown;
    prepare(text: string): { run(...args: unknown[]): { changes: number }; get(...args: unknown[]): Row | undefined; all(...args: unknown[]): Row[] };
    transaction<T>(fn: () => T): { immediate(): T };
  };
  const db = new Database(filename);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const q = () => '?';
  const insert = db.prepare(`INSERT INTO ${TABLE} (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(q).join(', ')})`);
  const read = db.prepare(`SELECT * FROM ${TABLE} WHERE id = ? AND tenant_id = ? AND workspace_id = ? AND cell_id IS NULL`);
  const update = db.prepare(
    `UPDATE ${TABLE} SET version = ?, updated_at = ?, updated_by = ?, title = ?, done = ? WHERE id = ? AND version = ? AND tenant_id = ?`,
  );
  const state = db.prepare(STATE_SQL(q));
  const audit = db.prepare(AUDIT_SQL(q));
  const event = db.prepare(EVENT_SQL(q));
  const page = db.prepare(`SELECT * FROM ${TABLE} WHERE tenant_id = ? AND workspace_id = ? AND deleted_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 20`);
  const count = db.prepare(`SELECT count(*) AS total FROM ${TABLE} WHERE tenant_id = ? AND workspace_id = ? AND deleted_at IS NULL`);
  const toSql = (values: unknown[]) => values.map((value) => (typeof value === 'boolean' ? Number(value) : value));
  return {
    async create(row, auditValues, eventValues, stateValues) {
      db.transaction(() => {
        insert.run(...toSql(COLUMNS.map((name) => row[name])));
        state.run(...toSql(stateValues));
        audit.run(...toSql(auditValues));
        event.run(...toSql(eventValues));
      }).immediate();
    },
    async update(id, tenantId, workspaceId, expected, change, appends) {
      return db
        .transaction(() => {
          const before = read.get(id, tenantId, workspaceId);
          if (before === undefined) return 'missing' as const;
          const after = change(before);
          if (after === null) return null;
          if (update.run(after.version, after.updated_at, after.updated_by, after.title, toSql([after.done])[0], id, expected, tenantId).changes !== 1)
            return null;
          const [s, a, e] = appends(before, after);
          state.run(...toSql(s!));
          audit.run(...toSql(a!));
          event.run(...toSql(e!));
          return after;
        })
        .immediate();
    },
    async get(id, tenantId, workspaceId) {
      return read.get(id, tenantId, workspaceId);
    },
    async list(tenantId, workspaceId) {
      return { rows: page.all(tenantId, workspaceId), total: Number((count.get(tenantId, workspaceId) as { total: number }).total) };
    },
  };
}

async function postgresDb(url: string): Promise<Db> {
  const pg = createRequire(import.meta.url)('pg') as typeof import('pg');
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const p = (n: number) => `$${n}`;
  const texts = {
    insert: `INSERT INTO ${TABLE} (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, i) => p(i + 1)).join(', ')})`,
    read: `SELECT * FROM ${TABLE} WHERE id = $1 AND tenant_id = $2 AND workspace_id = $3 AND cell_id IS NULL`,
    update: `UPDATE ${TABLE} SET version = $1, updated_at = $2, updated_by = $3, title = $4, done = $5 WHERE id = $6 AND version = $7 AND tenant_id = $8`,
    state: STATE_SQL(p),
    audit: AUDIT_SQL(p),
    event: EVENT_SQL(p),
    page: `SELECT * FROM ${TABLE} WHERE tenant_id = $1 AND workspace_id = $2 AND deleted_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 20`,
    count: `SELECT count(*)::int AS total FROM ${TABLE} WHERE tenant_id = $1 AND workspace_id = $2 AND deleted_at IS NULL`,
  };
  // Named statements: each connection prepares a statement once and reuses it, as a driver that
  // prepares once per model would.
  const run = (client: import('pg').PoolClient, name: keyof typeof texts, values: unknown[]) => client.query({ name, text: texts[name], values });
  const inTransaction = async <T>(fn: (client: import('pg').PoolClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  };
  return {
    async create(row, auditValues, eventValues, stateValues) {
      await inTransaction(async (client) => {
        await run(
          client,
          'insert',
          COLUMNS.map((name) => row[name]),
        );
        await run(client, 'state', stateValues);
        await run(client, 'audit', auditValues);
        await run(client, 'event', eventValues);
      });
    },
    async update(id, tenantId, workspaceId, expected, change, appends) {
      return inTransaction(async (client) => {
        const before = (await run(client, 'read', [id, tenantId, workspaceId])).rows[0] as Row | undefined;
        if (before === undefined) return 'missing' as const;
        const after = change(before);
        if (after === null) return null;
        const updated = await run(client, 'update', [after.version, after.updated_at, after.updated_by, after.title, after.done, id, expected, tenantId]);
        if (updated.rowCount !== 1) return null;
        const [s, a, e] = appends(before, after);
        await run(client, 'state', s!);
        await run(client, 'audit', a!);
        await run(client, 'event', e!);
        return after;
      });
    },
    async get(id, tenantId, workspaceId) {
      const client = await pool.connect();
      try {
        return (await run(client, 'read', [id, tenantId, workspaceId])).rows[0] as Row | undefined;
      } finally {
        client.release();
      }
    },
    async list(tenantId, workspaceId) {
      const client = await pool.connect();
      try {
        const [rows, count] = await Promise.all([run(client, 'page', [tenantId, workspaceId]), run(client, 'count', [tenantId, workspaceId])]);
        return { rows: rows.rows as Row[], total: (count.rows[0] as { total: number }).total };
      } finally {
        client.release();
      }
    },
  };
}

const db = databaseUrl.startsWith('sqlite:') ? await sqliteDb(databaseUrl.slice('sqlite:'.length)) : await postgresDb(databaseUrl);

/** The wire form of a row (camelCase, booleans as booleans). */
function wire(row: Row) {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    workspaceId: row.workspace_id,
    cellId: row.cell_id ?? null,
    title: row.title,
    done: row.done === null || row.done === undefined ? null : Boolean(row.done),
    version: Number(row.version),
    createdAt: row.created_at,
    createdBy: row.created_by,
    updatedAt: row.updated_at,
    updatedBy: row.updated_by,
    deletedAt: row.deleted_at ?? null,
    deletedBy: row.deleted_by ?? null,
  };
}

function answer(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function record(res: ServerResponse, status: number, row: Row, headers: Record<string, string> = {}) {
  const data = wire(row);
  answer(
    res,
    status,
    { data, meta: { version: data.version, createdAt: data.createdAt, updatedAt: data.updatedAt, updatedBy: data.updatedBy } },
    { etag: `"${data.version}"`, ...headers },
  );
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** The actor of the token, if it may edit (`editor`) in the workspace. */
async function actorOf(req: IncomingMessage, workspaceId: string): Promise<{ id: string; tenantId: string } | undefined> {
  const header = req.headers.authorization;
  if (header === undefined || !header.startsWith('Bearer ')) return undefined;
  const { payload } = await jwtVerify(header.slice(7), secret, { algorithms: ['HS256'] });
  const roles = (payload.workspaces as Record<string, string[]> | undefined)?.[workspaceId] ?? [];
  if (!roles.includes('editor')) return undefined;
  return { id: String(payload.sub), tenantId: String(payload.tenant_id) };
}

/** The RFC 6902 diff of the fields that changed, as cellgate stores it. */
function diffOf(before: Row, after: Row): unknown[] {
  const ops: unknown[] = [];
  for (const name of ['title', 'done']) if (before[name] !== after[name]) ops.push({ op: 'replace', path: `/${name}`, value: after[name] ?? null });
  return ops;
}

function appends(actorId: string, eventType: string, before: Row | null, after: Row): unknown[][] {
  const now = String(after.updated_at);
  const diff = JSON.stringify(before === null ? [{ op: 'add', path: '/title', value: after.title }] : diffOf(before, after));
  const auditId = randomUUID();
  const state = [RESOURCE_TYPE, after.id, after.version, after.tenant_id, after.workspace_id, null, JSON.stringify(wire(after)), now];
  const audit = [
    auditId,
    after.tenant_id,
    after.workspace_id,
    null,
    actorId,
    'user',
    eventType,
    RESOURCE_TYPE,
    after.id,
    after.version,
    before === null ? null : before.version,
    now,
    randomUUID(),
    null,
    '127.0.0.1',
    null,
    'diff',
    diff,
    null,
    true,
    null,
    null,
  ];
  const payload = JSON.stringify({
    id: randomUUID(),
    type: eventType,
    resourceType: RESOURCE_TYPE,
    resourceId: after.id,
    version: after.version,
    auditId,
    occurredAt: now,
    change: diff,
  });
  const event = [randomUUID(), after.tenant_id, after.workspace_id, RESOURCE_TYPE, payload, false];
  return [state, audit, event];
}

const server = createServer(async (req, res) => {
  try {
    const path = req.url ?? '/';
    const match = /^\/v1\/workspaces\/([0-9a-f-]{36})\/tasks(?:\/([0-9a-f-]{36}))?(\?.*)?$/.exec(path);
    if (match === null) return answer(res, 404, { error: 'NOT_FOUND', message: 'Not found' });
    const [, workspaceId = '', id] = match;
    const text = req.method === 'POST' || req.method === 'PATCH' ? await readBody(req) : '';
    const body = text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>);
    const actor = await actorOf(req, workspaceId);
    if (actor === undefined) return answer(res, 403, { error: 'FORBIDDEN', message: 'Forbidden' });
    if (req.method === 'POST' && id === undefined) {
      const now = new Date().toISOString();
      const row: Row = {
        id: randomUUID(),
        tenant_id: actor.tenantId,
        workspace_id: workspaceId,
        cell_id: null,
        version: 1,
        created_at: now,
        created_by: actor.id,
        updated_at: now,
        updated_by: actor.id,
        deleted_at: null,
        deleted_by: null,
        title: body?.title,
        done: body?.done ?? null,
      };
      const [state, audit, event] = appends(actor.id, 'entity.created', null, row);
      await db.create(row, audit!, event!, state!);
      return record(res, 201, row, { location: `${path}/${row.id}` });
    }
    if (req.method === 'PATCH' && id !== undefined && body !== undefined) {
      const expected = Number(body.expectedVersion);
      const changes: Record<string, unknown> = {};
      if (Array.isArray(body.patch)) for (const op of body.patch as { path: string; value: unknown }[]) changes[op.path.slice(1)] = op.value;
      else for (const name of ['title', 'done']) if (name in body) changes[name] = body[name];
      const result = await db.update(
        id,
        actor.tenantId,
        workspaceId,
        expected,
        (before) =>
          Number(before.version) !== expected
            ? null
            : { ...before, ...changes, version: expected + 1, updated_at: new Date().toISOString(), updated_by: actor.id },
        (before, after) => appends(actor.id, 'entity.updated', before, after),
      );
      if (result === 'missing') return answer(res, 404, { error: 'NOT_FOUND', message: 'Not found' });
      if (result === null) return answer(res, 409, { error: 'CONFLICT', message: 'Version conflict' });
      return record(res, 200, result);
    }
    if (req.method === 'GET' && id !== undefined) {
      const row = await db.get(id, actor.tenantId, workspaceId);
      return row === undefined ? answer(res, 404, { error: 'NOT_FOUND', message: 'Not found' }) : record(res, 200, row);
    }
    if (req.method === 'GET') {
      const { rows, total } = await db.list(actor.tenantId, workspaceId);
      return answer(res, 200, { data: rows.map(wire), meta: { total, page: 1, pageSize: 20 } });
    }
    answer(res, 405, { error: 'METHOD_NOT_ALLOWED', message: 'Method not allowed' });
  } catch (error) {
    answer(res, 500, { error: 'INTERNAL_ERROR', message: String(error) });
  }
});
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
