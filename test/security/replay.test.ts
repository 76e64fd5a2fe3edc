/**
 * The attack replay of issue #12: the reference host runs as a real process on 127.0.0.1 (on a
 * SQLite file, and on a fresh PostgreSQL database when DATABASE_URL is set) and receives every
 * repro of items 1-13 over HTTP and MCP, as an outsider would send them. Each answer must be a 4xx
 * in the envelope (`-32602` for MCP parameters), no answer may take long, `/health` must answer
 * quickly while the heavy inputs are in flight, and every 500 must be in the host's log.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ids, mint, paths, SECRET } from '../governed/support.ts';
import { createDatabase, type TestPostgres } from '../support/postgres.ts';
import { hit, mcp, received, startReplayHost, type ReplayHost, type Reply } from './host.ts';

/** A generous bound for "answers at once": far above a normal answer, far below the seconds the attacks took. */
const QUICK_MS = 500;
/** Bound for a heavy (near 1 MiB) input to be refused or answered. */
const HEAVY_MS = 5_000;

/** A 4xx in the `{ error, message, details? }` envelope, with no stack trace. */
function expect4xx(reply: Reply, what: string): void {
  expect(reply.status, `${what}: ${reply.text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(reply.status, `${what}: ${reply.text.slice(0, 300)}`).toBeLessThan(500);
  expect(typeof reply.body?.error, `${what}: envelope`).toBe('string');
  expect(typeof reply.body?.message, `${what}: envelope`).toBe('string');
  expect(reply.text, `${what}: no stack`).not.toMatch(/\n\s+at |node_modules|\.ts:\d+/);
}

/** A JSON-RPC `-32602` (invalid params) with a clean message: no raw zod issue dump. */
function expectInvalidParams(reply: Reply, what: string): void {
  const error = reply.body?.error;
  expect(error?.code, `${what}: ${reply.text.slice(0, 300)}`).toBe(-32602);
  expect(error.message, what).not.toMatch(/"code":|invalid_type|\[\s*\{|\n\s+at /);
}

/** `depth` nested objects around `inner`: `{"a":{"a":…inner…}}`. */
const nested = (depth: number, inner = '1') => `${'{"a":'.repeat(depth)}${inner}${'}'.repeat(depth)}`;

/** A manifest with `count` empty pages (3 bytes each). */
const manyPagesManifest = (count: number) =>
  `{"apiVersion":"platform/v1alpha1","kind":"Cell","metadata":{"key":"x","name":"X","version":"1.0.0"},"spec":{"mount":{"mountPath":"/","landingPage":"p"},"pages":[${Array(count).fill('{}').join(',')}]}}`;

/** An HS256 token from raw payload text (to carry `1e400`, which JSON.stringify cannot write). */
function signRaw(payloadText: string): string {
  const b64 = (text: string) => Buffer.from(text).toString('base64url');
  const head = `${b64('{"alg":"HS256","typ":"JWT"}')}.${b64(payloadText)}`;
  return `${head}.${createHmac('sha256', SECRET).update(head).digest('base64url')}`;
}

interface Storage {
  url: string;
  /** Runs one SQL statement on the host's database from outside (fault injection, inspection). */
  query(sql: string): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

async function sqliteStorage(): Promise<Storage> {
  const dir = mkdtempSync(join(tmpdir(), 'cellgate-replay-'));
  const file = join(dir, 'replay.db');
  return {
    url: `sqlite:${file}`,
    query: async (sql) => {
      const db = new Database(file);
      try {
        const statement = db.prepare(sql);
        return statement.reader ? (statement.all() as Array<Record<string, unknown>>) : (statement.run(), []);
      } finally {
        db.close();
      }
    },
    close: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function postgresStorage(serverUrl: string): Promise<Storage> {
  const db: TestPostgres = await createDatabase(serverUrl);
  return {
    url: db.url,
    query: async (sql) => {
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        return (await client.query(sql)).rows as Array<Record<string, unknown>>;
      } finally {
        await client.end();
      }
    },
    close: () => db.stop(),
  };
}

const storages: Array<[string, () => Promise<Storage>]> = [['SQLite', sqliteStorage]];
if (process.env.DATABASE_URL) storages.push(['PostgreSQL', () => postgresStorage(process.env.DATABASE_URL!)]);

describe.each(storages)('attack replay against the reference host on %s', (_name, open) => {
  let storage: Storage;
  let host: ReplayHost;
  let base: string;
  let admin: string;
  let editor: string;
  // Answers before this host started came from another host, whose stderr this one does not have.
  let firstReceived = 0;

  beforeAll(async () => {
    firstReceived = received.length;
    storage = await open();
    host = await startReplayHost({ DATABASE_URL: storage.url, CELLGATE_JWT_SECRET: SECRET });
    base = host.url;
    const everywhere = { [ids.ws]: ['admin'] };
    admin = await mint({ sub: ids.admin, roles: ['admin'], workspaces: everywhere, permissions: ['audit:read', 'crm.customers.read', 'crm.invoices.read'] });
    // Activity events are tenant-wide (system-global): only the tenant-level admin role writes them.
    editor = await mint({ sub: ids.editor, workspaces: { [ids.ws]: ['editor'] } });
  }, 120_000);

  afterAll(async () => {
    const code = await host?.stop();
    expect(code, `host exit code; stderr tail:\n${host?.stderr.slice(-5).join('\n')}`).toBe(0);
    await storage?.close();
  });

  const createCustomer = async () => {
    const created = await hit(base, 'POST', paths.customers(), { token: editor, body: { name: 'Acme', email: 'ceo@acme.example', status: 'lead' } });
    expect(created.status, created.text).toBe(201);
    return created.body.data as { id: string; version: number };
  };

  it('item 1: the quadratic e-mail input is refused at once on create, merge PATCH and JSON Patch', async () => {
    const email = `a@${'.'.repeat(128_000)} `;
    const customer = await createCustomer();
    const url = `${paths.customers()}/${customer.id}`;
    const replies = [
      await hit(base, 'POST', paths.customers(), { token: editor, body: { name: 'Acme', email, status: 'lead' } }),
      await hit(base, 'PATCH', url, { token: editor, body: { expectedVersion: 1, email } }),
      await hit(base, 'PATCH', url, { token: editor, body: { expectedVersion: 1, patch: [{ op: 'replace', path: '/email', value: email }] } }),
    ];
    for (const [index, reply] of replies.entries()) {
      expect4xx(reply, `e-mail attack ${index}`);
      expect(reply.ms, `e-mail attack ${index} took ${Math.round(reply.ms)} ms`).toBeLessThan(HEAVY_MS);
    }
  }, 120_000);

  it('item 2: amplification on public endpoints is refused or bounded (REST and MCP)', async () => {
    const manifest = manyPagesManifest(300_000); // ~900 KB
    const restPages = await hit(base, 'POST', '/api/validate/manifest', { body: `{"manifest":${manifest}}` });
    const keys = Array.from({ length: 80_000 }, (_, i) => `entity_${i}`);
    const restSuggest = await hit(base, 'POST', '/api/guidance/suggest-pages', { body: { entities: keys } });
    const entity = { key: 'customer', name: 'Customer', fields: Array(150_000).fill({}) };
    const restEntity = await hit(base, 'POST', '/api/validate/entity', { body: { entity } });
    // A validation route may refuse (4xx) or answer a bounded report: at most 100 issues, the
    // size cap named at the list's path or at root, and anything left out counted.
    const bounded = (what: string, reply: Reply, result: Record<string, unknown> | undefined) => {
      if (reply.status !== 200) return expect4xx(reply, what);
      expect(result?.valid, what).toBe(false);
      const errors = result?.errors as Array<{ field: string; message: string }>;
      expect(errors.length, what).toBeGreaterThan(0);
      expect(errors.length, what).toBeLessThanOrEqual(100);
      expect(errors.map((error) => error.message).join('\n'), what).toMatch(/at most|too many|more than/i);
    };
    for (const [what, reply] of [
      ['validate/manifest', restPages],
      ['suggest-pages', restSuggest],
      ['validate/entity', restEntity],
    ] as const) {
      expect(reply.ms, `${what} took ${Math.round(reply.ms)} ms`).toBeLessThan(HEAVY_MS);
      expect(reply.text.length, `${what} answered ${reply.text.length} bytes`).toBeLessThan(256 * 1024);
    }
    bounded('validate/manifest with 300,000 pages', restPages, restPages.body);
    bounded('validate/entity with 150,000 fields', restEntity, restEntity.body);
    expect4xx(restSuggest, 'suggest-pages with 80,000 entities');

    const mcpPages = await mcp(base, 'tools/call', `{"name":"validate_manifest","arguments":{"manifest":${manyPagesManifest(100_000)}}}`);
    expect(mcpPages.ms).toBeLessThan(HEAVY_MS);
    expect(mcpPages.text.length, `MCP validate_manifest answered ${mcpPages.text.length} bytes`).toBeLessThan(256 * 1024);
    if (mcpPages.body.error) expectInvalidParams(mcpPages, 'MCP validate_manifest with 100,000 pages');
    else
      bounded(
        'MCP validate_manifest with 100,000 pages',
        mcpPages,
        (mcpPages.body.result as { structuredContent?: Record<string, unknown> }).structuredContent,
      );
    // 5,000 keys: under the body limit, so the refusal is the tool's own cap, not the 413.
    const mcpSuggest = await mcp(base, 'tools/call', { name: 'suggest_page_set_for_entities', arguments: { entities: keys.slice(0, 5_000) } });
    expect(mcpSuggest.text.length, `MCP suggest_page_set_for_entities answered ${mcpSuggest.text.length} bytes`).toBeLessThan(256 * 1024);
    const suggestResult = mcpSuggest.body.result as { isError?: boolean } | undefined;
    if (!suggestResult?.isError) expectInvalidParams(mcpSuggest, 'MCP suggest_page_set_for_entities with 5,000 entities');
  }, 120_000);

  it('item 3: deep JSON is a 400 on create, with Idempotency-Key, in a JSON Patch value, in normalize options; -32602 over MCP', async () => {
    const customer = await createCustomer();
    const replies: Array<[string, Reply]> = [
      ['create, 4,500 levels', await hit(base, 'POST', paths.events(), { token: admin, body: `{"kind":"deep","payload":${nested(4_500)}}` })],
      [
        'create with Idempotency-Key, 3,000 levels',
        await hit(base, 'POST', paths.events(), {
          token: admin,
          body: `{"kind":"deep","payload":${nested(3_000)}}`,
          headers: { 'idempotency-key': 'replay-deep-1' },
        }),
      ],
      [
        'JSON Patch value, 5,000 levels',
        await hit(base, 'PATCH', `${paths.customers()}/${customer.id}`, {
          token: editor,
          body: `{"expectedVersion":1,"patch":[{"op":"replace","path":"/notes","value":${nested(5_000)}}]}`,
        }),
      ],
      ['normalize options, 5,000 levels', await hit(base, 'POST', '/api/validate/normalize', { body: `{"manifest":{},"options":${nested(5_000)}}` })],
    ];
    for (const [what, reply] of replies) {
      expect4xx(reply, what);
      expect(reply.status, what).toBe(400);
    }
    const overMcp = await mcp(base, 'tools/call', `{"name":"normalize_manifest","arguments":{"manifest":{},"options":${nested(5_000)}}}`);
    // Refused at parse time: a 4xx JSON-RPC error, or -32602 for the arguments.
    if (overMcp.status === 200) expectInvalidParams(overMcp, 'MCP normalize_manifest, 5,000 levels');
    else {
      expect(overMcp.status, overMcp.text.slice(0, 300)).toBeGreaterThanOrEqual(400);
      expect(overMcp.status).toBeLessThan(500);
      expect(overMcp.body?.error?.code, overMcp.text.slice(0, 300)).toEqual(expect.any(Number));
    }
  }, 120_000);

  it('item 4: a token whose workspaces claim has a key named constructor gets 401 or 403, on governed and audit routes', async () => {
    for (const key of ['constructor', '__proto__', 'toString']) {
      const token = await mint({ sub: ids.editor, workspaces: { [key]: ['admin'] }, permissions: ['audit:read'] });
      for (const path of [paths.customers(), paths.invoices(), paths.events(), '/v1/audit']) {
        const reply = await hit(base, 'GET', path, { token });
        expect4xx(reply, `${key} claim on ${path}`);
        expect([401, 403], `${key} claim on ${path}`).toContain(reply.status);
      }
    }
  });

  it('item 5: scaffold_primitive cannot inject YAML through its label (refused, or emitted safely)', async () => {
    const label = 'Evil\nstatus: injected\n# tail';
    const reply = await mcp(base, 'tools/call', { name: 'scaffold_primitive', arguments: { name: 'evil-widget', label } });
    expect(reply.status).toBe(200);
    if (reply.body.error) {
      expectInvalidParams(reply, 'scaffold_primitive label with newlines');
      return;
    }
    const result = reply.body.result as { isError?: boolean; structuredContent?: { files?: Array<{ path: string; content: string }> } };
    if (result.isError) return; // refused as a tool error: nothing emitted
    const files = result.structuredContent?.files ?? [];
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      if (file.path.endsWith('.yaml')) {
        // Emitted safely: the label stays one value (a block scalar may span lines), no key is added.
        const parsed = parseYaml(file.content) as Record<string, unknown>;
        expect(Object.keys(parsed), file.path).not.toContain('status');
        if ('label' in parsed) expect(parsed.label, file.path).toBe(label);
      } else {
        // Elsewhere an injected key would start a line of its own.
        expect(
          file.content.split('\n').filter((line) => /^status:\s*injected/.test(line)),
          file.path,
        ).toEqual([]);
      }
    }
  });

  it('item 6: JSON Patch copy from a credential field never puts the credential in clear into audit or versions', async () => {
    const token = 'tok_live_REPLAY_CREDENTIAL_6';
    const invoice = await hit(base, 'POST', paths.invoices(), {
      token: admin,
      body: {
        invoiceNumber: 'INV-6',
        customerId: ids.viewer,
        customerName: 'Acme',
        amount: 1,
        dueDate: '2026-03-01T00:00:00.000Z',
        status: 'DRAFT',
        paymentToken: token,
      },
    });
    expect(invoice.status, invoice.text).toBe(201);
    const url = `${paths.invoices()}/${invoice.body.data.id}`;
    for (const [op, version] of [
      ['copy', 1],
      ['move', 1],
    ] as const) {
      const reply = await hit(base, 'PATCH', url, {
        token: admin,
        body: { expectedVersion: version, patch: [{ op, from: '/paymentToken', path: '/customerName' }] },
      });
      if (reply.status >= 400) expect4xx(reply, `${op} from paymentToken`);
      else break; // applied: the audit and versions below must be redacted
    }
    const audit = await hit(base, 'GET', `/v1/audit?resourceId=${invoice.body.data.id}`, { token: admin });
    expect(audit.status, audit.text).toBe(200);
    const versions = await hit(base, 'GET', `${url}/versions`, { token: admin });
    expect(versions.status, versions.text).toBe(200);
    expect(audit.text).not.toContain(token);
    expect(versions.text).not.toContain(token);
  });

  it('item 7: nosniff on every kind of answer, a CSP with frame-ancestors on the docs page, no X-Powered-By', async () => {
    const answers = [
      await hit(base, 'GET', '/health'),
      await hit(base, 'GET', '/api/primitives'),
      await hit(base, 'GET', '/no-such-path'),
      await hit(base, 'GET', paths.customers()),
      await hit(base, 'GET', '/api/docs'),
      await hit(base, 'GET', '/api/docs/assets/swagger-ui.css'),
      await mcp(base, 'tools/list', {}),
    ];
    for (const reply of answers) {
      expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
      expect(reply.headers.get('x-powered-by')).toBeNull();
    }
    expect4xx(answers[2]!, 'unmatched path');
    const csp = answers[4]!.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/frame-ancestors ('none'|'self')/);
    expect(csp).toMatch(/script-src 'self'(;|$)/);
  });

  it('item 8: impossible calendar dates are a 400 in the body and in filters', async () => {
    const body = await hit(base, 'POST', paths.invoices(), {
      token: admin,
      body: { invoiceNumber: 'INV-8', customerId: ids.viewer, customerName: 'Acme', amount: 1, dueDate: '2026-02-30T00:00:00Z', status: 'DRAFT' },
    });
    expect4xx(body, 'dueDate 2026-02-30');
    expect(body.status).toBe(400);
    const filter = await hit(base, 'GET', `${paths.invoices()}?dueDate[after]=2026-02-30T00:00:00Z`, { token: admin });
    expect4xx(filter, 'filter dueDate[after]=2026-02-30');
    expect(filter.status).toBe(400);
  });

  it('item 9: a non-finite number inside an object field is a 400, not a stored null', async () => {
    const reply = await hit(base, 'POST', paths.events(), { token: admin, body: '{"kind":"inf","payload":{"x":1e400}}' });
    expect4xx(reply, 'payload.x = 1e400');
    expect(reply.status).toBe(400);
  });

  it('item 10: an idempotency record never stores a credential value', async () => {
    const token = 'tok_live_REPLAY_CREDENTIAL_10';
    const body = {
      invoiceNumber: 'INV-10',
      customerId: ids.viewer,
      customerName: 'Acme',
      amount: 1,
      dueDate: '2026-03-01T00:00:00.000Z',
      status: 'DRAFT',
      paymentToken: token,
    };
    const first = await hit(base, 'POST', paths.invoices(), { token: admin, body, headers: { 'idempotency-key': 'replay-item-10' } });
    expect(first.status, first.text).toBe(201);
    const again = await hit(base, 'POST', paths.invoices(), { token: admin, body, headers: { 'idempotency-key': 'replay-item-10' } });
    expect(again.body.data.id).toBe(first.body.data.id);
    const rows = await storage.query('SELECT * FROM cellgate_idempotency');
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('item 11: a validly signed token with exp 1e400 (or another absurd time claim) is a 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    const claims = `"sub":"${ids.admin}","tenant_id":"${ids.tenant}","roles":["admin"],"workspaces":{},"permissions":[]`;
    for (const times of [
      `"iat":${now},"exp":1e400`,
      `"iat":${now},"exp":1e300`,
      `"iat":${now},"exp":${now + 600},"nbf":-1e400`,
      `"iat":1e400,"exp":${now + 600}`,
    ]) {
      const reply = await hit(base, 'GET', paths.events(), { token: signRaw(`{${claims},${times}}`) });
      expect4xx(reply, `token with ${times}`);
      expect(reply.status, `token with ${times}`).toBe(401);
    }
  });

  it('item 13: invalid parameter types in MCP resources/read and initialize get -32602 with a clean message', async () => {
    expectInvalidParams(await mcp(base, 'resources/read', { uri: 123 }), 'resources/read uri: 123');
    expectInvalidParams(await mcp(base, 'resources/read', { uri: ['platform://docs/manifest-format'] }), 'resources/read uri: [..]');
    expectInvalidParams(await mcp(base, 'initialize', { protocolVersion: 5, capabilities: 'none', clientInfo: 1 }), 'initialize with wrong types');
  });

  it('/health answers at once while the heavy inputs are in flight', async () => {
    const email = `a@${'.'.repeat(128_000)} `;
    // A dropped connection is reported as status 0, so the assertion below names it.
    const settle = (reply: Promise<Reply>) => reply.catch((error: unknown) => ({ status: 0, text: String(error) }) as Reply);
    const heavy = Promise.all([
      settle(hit(base, 'POST', paths.customers(), { token: editor, body: { name: 'Acme', email, status: 'lead' } })),
      settle(hit(base, 'POST', '/api/validate/manifest', { body: `{"manifest":${manyPagesManifest(300_000)}}` })),
      settle(mcp(base, 'tools/call', `{"name":"validate_manifest","arguments":{"manifest":${manyPagesManifest(100_000)}}}`)),
      settle(hit(base, 'POST', paths.events(), { token: admin, body: `{"kind":"deep","payload":${nested(4_500)}}` })),
    ]);
    let done = false;
    void heavy.finally(() => (done = true));
    const latencies: number[] = [];
    // Poll until every heavy request is answered (at least 5 probes).
    while (!done || latencies.length < 5) {
      const probe = await hit(base, 'GET', '/health');
      expect(probe.status).toBe(200);
      latencies.push(probe.ms);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const replies = await heavy;
    for (const reply of replies) {
      expect(reply.status, reply.text.slice(0, 200)).toBeGreaterThanOrEqual(200);
      expect(reply.status, reply.text.slice(0, 200)).toBeLessThan(500);
    }
    expect(Math.max(...latencies), `/health latencies (ms): ${latencies.map(Math.round).join(', ')}`).toBeLessThan(QUICK_MS);
  }, 120_000);

  it('item 12: every 500 is logged by the host as one JSON line with its correlation id and stack (a table dropped under it)', async () => {
    // A real fault: the activity-events table disappears under the running host.
    const tables = await storage.query(
      storage.url.startsWith('sqlite:')
        ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%activity%'"
        : "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_name LIKE '%activity%'",
    );
    expect(tables.length, 'the activity-events table').toBe(1);
    await storage.query(`DROP TABLE "${String(tables[0]!.name)}"`);
    const failed = await hit(base, 'POST', paths.events(), { token: admin, body: { kind: 'after-drop' } });
    expect(failed.status, failed.text).toBe(500);
    expect(failed.body).toEqual({ error: 'INTERNAL_ERROR', message: expect.any(String), details: { correlationId: expect.any(String) } });
    expect(failed.text).not.toMatch(/activity|table|SQL|\n\s+at /i);

    // Every 500 of the whole replay (this one included) is in the host's stderr, once, with its stack.
    await new Promise((resolve) => setTimeout(resolve, 200)); // let the child's stderr arrive
    const logged = host.stderr.flatMap((line) => {
      try {
        return [JSON.parse(line) as { correlationId?: string; err?: { stack?: string }; path?: string; method?: string }];
      } catch {
        return [];
      }
    });
    const fiveHundreds = received.slice(firstReceived).filter((reply) => reply.status === 500 && reply.body?.details?.correlationId);
    expect(fiveHundreds.length).toBeGreaterThan(0);
    for (const reply of fiveHundreds) {
      const lines = logged.filter((entry) => entry.correlationId === reply.body.details.correlationId);
      expect(lines, `log line of 500 ${reply.body.details.correlationId}`).toHaveLength(1);
      expect(lines[0]!.err?.stack).toMatch(/\n\s+at /);
    }
    expect(logged.find((entry) => entry.correlationId === failed.body.details.correlationId)).toMatchObject({ method: 'POST', path: paths.events() });
  });
});
