/**
 * Lookups keyed by client input never reach Object.prototype (#26 item 4). The reference host runs
 * as a real process on 127.0.0.1 (on a SQLite file, and on a fresh PostgreSQL database) and every
 * member name of Object.prototype (`toString`, `constructor`, `__proto__`, `hasOwnProperty`, …) is
 * sent at every input the host looks something up by: MCP method, tool, resource URI, prompt and
 * headers in both revisions; contract query values, path keys, guidance keys and entity-document
 * field names; governed resource names, workspace ids, query parameter names, filter operators,
 * sortBy, `Prefer`, body members, JSON Patch paths and operations, and token roles, workspaces,
 * permissions and plan. Every answer must be a 4xx, a 200 or a JSON-RPC error other than -32603
 * (internal error), and the host must log no unexpected failure.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customer, demoEntity, ids, mint, paths, SECRET } from '../governed/support.ts';
import { startTestPostgres, type TestPostgres } from '../support/postgres.ts';
import { hit, MCP_HEADERS, startReplayHost, type ReplayHost, type Reply } from './host.ts';

/** Every own member name of Object.prototype. */
const NAMES = Object.getOwnPropertyNames(Object.prototype);

const MODERN = '2026-07-28';
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };
const modernHeaders = (method: string, name?: string) => ({
  ...MCP_HEADERS,
  'mcp-protocol-version': MODERN,
  'mcp-method': method,
  ...(name === undefined ? {} : { 'mcp-name': name }),
});

/** JSON text of an object with one member named `name` (a literal `__proto__` key stays a member in JSON text). */
const member = (name: string, value: unknown) => `{${JSON.stringify(name)}:${JSON.stringify(value)}}`;

/** What a probe needs: the host's URL, a record to patch and tokens. */
interface Probe {
  base: string;
  admin: string;
  recordId: string;
}

type Send = (probe: Probe, name: string) => Promise<Reply>;

const rpc = (base: string, message: unknown, headers: Record<string, string> = MCP_HEADERS) =>
  hit(base, 'POST', '/mcp', { body: typeof message === 'string' ? message : JSON.stringify(message), headers });
const call = (method: string, params: unknown) => ({ jsonrpc: '2.0', id: 1, method, params });

/** Inputs of the MCP endpoint, in both revisions. */
const MCP_INPUTS: Record<string, Send> = {
  method: ({ base }, name) => rpc(base, call(name, {})),
  'method (2026-07-28)': ({ base }, name) => rpc(base, call(name, { _meta: ENVELOPE }), modernHeaders(name)),
  tool: ({ base }, name) => rpc(base, call('tools/call', { name, arguments: {} })),
  'tool (2026-07-28)': ({ base }, name) => rpc(base, call('tools/call', { name, arguments: {}, _meta: ENVELOPE }), modernHeaders('tools/call', name)),
  'tool without _meta (2026-07-28)': ({ base }, name) =>
    rpc(base, call('tools/call', { name: 'get_primitive_contract', arguments: { key: name } }), modernHeaders('tools/call', 'get_primitive_contract')),
  'resource URI': ({ base }, name) => rpc(base, call('resources/read', { uri: name })),
  'docs resource': ({ base }, name) => rpc(base, call('resources/read', { uri: `platform://docs/${name}` })),
  prompt: ({ base }, name) => rpc(base, call('prompts/get', { name })),
  'tool argument key': ({ base }, name) =>
    rpc(base, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_primitive_contract","arguments":${member(name, 1)}}}`),
  'primitive key': ({ base }, name) =>
    rpc(base, call('tools/call', { name: 'validate_primitive_props', arguments: { key: name, props: JSON.parse(member(name, 1)) } })),
  'example key': ({ base }, name) => rpc(base, call('tools/call', { name: 'get_primitive_examples', arguments: { key: name } })),
  '_meta member': ({ base }, name) =>
    rpc(
      base,
      `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":${JSON.stringify(ENVELOPE).slice(0, -1)},${member(name, 1).slice(1)}}}`,
      modernHeaders('tools/list'),
    ),
  headers: ({ base }, name) => rpc(base, call('tools/list', {}), { ...MCP_HEADERS, 'mcp-protocol-version': name, 'mcp-method': name, 'mcp-name': name }),
};

const post = (base: string, path: string, body: string) => hit(base, 'POST', path, { body });

/** Inputs of the contract routes. */
const CONTRACT_INPUTS: Record<string, Send> = {
  'page type': ({ base }, name) => hit(base, 'GET', `/api/schemas/page?type=${encodeURIComponent(name)}`),
  'capability type': ({ base }, name) => hit(base, 'GET', `/api/schemas/capability?type=${encodeURIComponent(name)}`),
  'schema version': ({ base }, name) => hit(base, 'GET', `/api/schemas/manifest?version=${encodeURIComponent(name)}`),
  'primitive category and source': ({ base }, name) =>
    hit(base, 'GET', `/api/primitives?category=${encodeURIComponent(name)}&source=${encodeURIComponent(name)}`),
  'query parameter name': ({ base }, name) => hit(base, 'GET', `/api/primitives?${encodeURIComponent(name)}=1`),
  'primitive key': ({ base }, name) => hit(base, 'GET', `/api/primitives/${encodeURIComponent(name)}`),
  'example key': ({ base }, name) => hit(base, 'GET', `/api/examples/${encodeURIComponent(name)}`),
  'docs asset': ({ base }, name) => hit(base, 'GET', `/api/docs/assets/${encodeURIComponent(name)}`),
  'JSON Schema id': ({ base }, name) => hit(base, 'GET', `/api/json-schema/${encodeURIComponent(name)}`),
  'validate route': ({ base }, name) => post(base, `/api/validate/${encodeURIComponent(name)}`, '{}'),
  'guidance route': ({ base }, name) => post(base, `/api/guidance/${encodeURIComponent(name)}`, '{}'),
  'suggest-pages key': ({ base }, name) => post(base, '/api/guidance/suggest-pages', JSON.stringify({ entities: [name.toLowerCase()] })),
  'suggest-relations keys': ({ base }, name) => {
    const key = name.toLowerCase();
    return post(
      base,
      '/api/guidance/suggest-relations',
      JSON.stringify({
        entities: [
          { key, fields: [`${key}_id`] },
          { key: 'a', fields: [`${key}_id`] },
        ],
      }),
    );
  },
  'recommend goal': ({ base }, name) => post(base, '/api/guidance/recommend', JSON.stringify({ goal: `${name} ${name.toLowerCase()}` })),
  'explain-errors field': ({ base }, name) =>
    post(base, '/api/guidance/explain-errors', JSON.stringify({ errors: [{ field: `spec.${name}`, message: name }] })),
  'entity-document field names': ({ base }, name) => {
    const doc = demoEntity('customer') as {
      data: { filtering: { allowedFields: string[]; operators: Record<string, string[]> }; sorting: { allowedFields: string[] } };
    };
    doc.data.filtering.allowedFields.push(name);
    doc.data.sorting.allowedFields.push(name);
    const text = JSON.stringify(doc).replace('"operators":{', `"operators":{${member(name, ['equals']).slice(1, -1)},`);
    return post(base, '/api/validate/entity-document', text);
  },
  'entity-document members': ({ base }, name) => {
    const text = JSON.stringify(demoEntity('customer')).replace('"fields":{', `"fields":{${member(name, { type: 'string' }).slice(1, -1)},`);
    return post(base, '/api/validate/entity-document', text.replace('"permissions":{', `"permissions":{${member(name, ['x']).slice(1, -1)},`));
  },
};

/** Inputs of the governed routes. */
const GOVERNED_INPUTS: Record<string, Send> = {
  'resource name': ({ base, admin }, name) => hit(base, 'GET', `/v1/${encodeURIComponent(name)}`, { token: admin }),
  'workspace id': ({ base, admin }, name) => hit(base, 'GET', `/v1/workspaces/${encodeURIComponent(name)}/customers`, { token: admin }),
  'workspace resource name': ({ base, admin }, name) => hit(base, 'GET', `/v1/workspaces/${ids.ws}/${encodeURIComponent(name)}`, { token: admin }),
  'record id and sub-route': ({ base, admin, recordId }, name) =>
    hit(base, 'POST', `${paths.customers()}/${recordId}/${encodeURIComponent(name)}`, { token: admin, body: {} }),
  'list parameter name': ({ base, admin }, name) => hit(base, 'GET', `${paths.customers()}?${encodeURIComponent(name)}=1`, { token: admin }),
  'filter field': ({ base, admin }, name) => hit(base, 'GET', `${paths.customers()}?${encodeURIComponent(name)}[gt]=1`, { token: admin }),
  'filter operator': ({ base, admin }, name) => hit(base, 'GET', `${paths.customers()}?name[${encodeURIComponent(name)}]=1`, { token: admin }),
  sortBy: ({ base, admin }, name) =>
    hit(base, 'GET', `${paths.customers()}?sortBy=${encodeURIComponent(name)}&sortDir=${encodeURIComponent(name)}`, { token: admin }),
  Prefer: ({ base, admin }, name) => hit(base, 'GET', paths.customers(), { token: admin, headers: { prefer: `count=${name}` } }),
  'versions parameter name': ({ base, admin, recordId }, name) =>
    hit(base, 'GET', `${paths.customers()}/${recordId}/versions?${encodeURIComponent(name)}=1`, { token: admin }),
  'create member': ({ base, admin }, name) =>
    hit(base, 'POST', paths.customers(), { token: admin, body: JSON.stringify(customer()).replace('{', `{${member(name, 1).slice(1, -1)},`) }),
  'create enum value': ({ base, admin }, name) => hit(base, 'POST', paths.customers(), { token: admin, body: customer({ status: name }) }),
  'merge PATCH member': ({ base, admin, recordId }, name) =>
    hit(base, 'PATCH', `${paths.customers()}/${recordId}`, { token: admin, body: `{"expectedVersion":1,${member(name, 1).slice(1, -1)}}` }),
  'JSON Patch path': ({ base, admin, recordId }, name) =>
    hit(base, 'PATCH', `${paths.customers()}/${recordId}`, { token: admin, body: { expectedVersion: 1, patch: [{ op: 'add', path: `/${name}`, value: 1 }] } }),
  'JSON Patch nested path': ({ base, admin, recordId }, name) =>
    hit(base, 'PATCH', `${paths.customers()}/${recordId}`, {
      token: admin,
      body: { expectedVersion: 1, patch: [{ op: 'test', path: `/name/${name}`, value: 1 }] },
    }),
  'JSON Patch op': ({ base, admin, recordId }, name) =>
    hit(base, 'PATCH', `${paths.customers()}/${recordId}`, { token: admin, body: { expectedVersion: 1, patch: [{ op: name, path: '/name', value: 'x' }] } }),
  'audit parameters': ({ base, admin }, name) =>
    hit(base, 'GET', `/v1/audit?resourceType=${encodeURIComponent(name)}&${encodeURIComponent(name)}=1`, { token: admin }),
  'audit id': ({ base, admin }, name) => hit(base, 'GET', `/v1/audit/${encodeURIComponent(name)}`, { token: admin }),
  'feed parameters': ({ base, admin }, name) =>
    hit(base, 'GET', `/v1/events?resourceType=${encodeURIComponent(name)}&${encodeURIComponent(name)}=1`, { token: admin }),
  'feed cursor': ({ base, admin }, name) => hit(base, 'GET', `/v1/events?after=${encodeURIComponent(name)}`, { token: admin }),
  'token roles, workspaces, permissions, plan': async ({ base }, name) => {
    const token = await mint({
      sub: ids.admin,
      roles: [name],
      workspaces: { [ids.ws]: [name] },
      permissions: [name],
      plan: name,
      extra: { workspaces: JSON.parse(member(name, [name])) },
    });
    const replies = await Promise.all(
      [paths.customers(), paths.invoices(), paths.events(), '/v1/audit', '/v1/events'].map((path) => hit(base, 'GET', path, { token })),
    );
    return replies.find((reply) => reply.status >= 500) ?? replies[0]!;
  },
  'token workspace admin under a prototype name': async ({ base }, name) => {
    const token = await mint({ sub: ids.admin, extra: { workspaces: JSON.parse(member(name, ['admin'])) } });
    const replies = await Promise.all([paths.customers(), '/v1/audit'].map((path) => hit(base, 'GET', path, { token })));
    return replies.find((reply) => reply.status !== 403) ?? replies[0]!;
  },
};

/** Why an answer is wrong, or `undefined` when it is a 2xx/4xx (MCP: not an internal error). */
function problem(reply: Reply): string | undefined {
  if (reply.status >= 500) return `status ${reply.status}`;
  if (reply.body?.error?.code === -32603) return 'JSON-RPC internal error';
  if (/\n\s+at |node_modules|\.ts:\d+/.test(reply.text)) return 'stack trace in the answer';
  return undefined;
}

async function sqliteUrl(): Promise<{ url: string; stop: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'cellgate-prototype-keys-'));
  return { url: `sqlite:${join(dir, 'host.db')}`, stop: async () => rmSync(dir, { recursive: true, force: true }) };
}

async function postgresUrl(): Promise<TestPostgres | string> {
  const started = await startTestPostgres();
  return started.ok ? started.db : started.skip;
}

const postgres = await postgresUrl();
const storages: Array<[string, () => Promise<TestPostgres>, string | undefined]> = [
  ['SQLite', sqliteUrl, undefined],
  ['PostgreSQL', async () => postgres as TestPostgres, typeof postgres === 'string' ? postgres : undefined],
];

describe.each(storages)('Object.prototype member names at every keyed input, reference host on %s', (_name, open, skip) => {
  let database: TestPostgres;
  let host: ReplayHost;
  const probe: Probe = { base: '', admin: '', recordId: '' };

  beforeAll(async () => {
    if (skip) return;
    database = await open();
    host = await startReplayHost({ DATABASE_URL: database.url, CELLGATE_JWT_SECRET: SECRET });
    probe.base = host.url;
    probe.admin = await mint({
      sub: ids.admin,
      roles: ['admin'],
      workspaces: { [ids.ws]: ['admin'] },
      permissions: ['audit:read', 'audit:restore', 'crm.customers.read', 'crm.invoices.read', 'ops.activity-events.read'],
    });
    const created = await hit(probe.base, 'POST', paths.customers(), { token: probe.admin, body: customer() });
    expect(created.status, created.text).toBe(201);
    probe.recordId = created.body.data.id;
  }, 120_000);

  afterAll(async () => {
    if (skip) return;
    const code = await host?.stop();
    expect(code, `host exit code; stderr tail:\n${host?.stderr.slice(-5).join('\n')}`).toBe(0);
    await database?.stop();
  });

  it.skipIf(Boolean(skip)).each([
    ['MCP', MCP_INPUTS],
    ['contract', CONTRACT_INPUTS],
    ['governed', GOVERNED_INPUTS],
  ] as const)(
    `%s inputs answer 2xx/4xx, never 500 or -32603${skip ? ` (skipped: ${skip})` : ''}`,
    async (_side, inputs) => {
      const wrong: string[] = [];
      for (const [input, send] of Object.entries(inputs)) {
        for (const name of NAMES) {
          const reply = await send(probe, name);
          const why = problem(reply);
          if (why !== undefined) wrong.push(`${input} ${JSON.stringify(name)}: ${why}: ${reply.text.slice(0, 160)}`);
        }
      }
      expect(wrong).toEqual([]);
    },
    120_000,
  );

  it.skipIf(Boolean(skip))('answers each prototype name as what it is: an unknown name, never a found member', async () => {
    for (const name of ['constructor', '__proto__']) {
      // A query parameter named `__proto__` is an unknown member, not a prototype assignment that vanishes.
      const audit = await hit(probe.base, 'GET', `/v1/audit?${name}=1`, { token: probe.admin });
      expect([audit.status, audit.body.details.fields[0].path]).toEqual([400, name]);
    }
    // An entity document's data block naming `constructor` names no field of the entity.
    const doc = demoEntity('customer') as { data: { sorting: { allowedFields: string[] } } };
    doc.data.sorting.allowedFields.push('constructor');
    const checked = await hit(probe.base, 'POST', '/api/validate/entity-document', { body: doc });
    expect(checked.body.errors).toEqual([{ field: 'data.sorting.allowedFields.3', message: '"constructor" is not a field of this entity' }]);
    // MCP: a method named after a prototype member is not found, in both revisions.
    expect((await rpc(probe.base, call('toString', {}))).body.error.code).toBe(-32601);
    expect((await rpc(probe.base, call('constructor', { _meta: ENVELOPE }), modernHeaders('constructor'))).body.error.code).toBe(-32601);
  });

  it.skipIf(Boolean(skip))('the host logged no unexpected failure', async () => {
    await new Promise((resolve) => setTimeout(resolve, 200)); // let the child's stderr arrive
    expect(host.stderr.filter((line) => line.includes('unexpected failure'))).toEqual([]);
  });
});
