/**
 * Change sets and business rules over real HTTP (a node:http server on 127.0.0.1, a SQLite file):
 * a rule refuses a create, a merge PATCH and a JSON Patch with 422 BUSINESS_RULE_VIOLATION; a rule
 * that throws is a 500 without a trace; the records of an `api.transaction` are found with
 * `GET /v1/audit?changeSetId=`, within the caller's reach, and carry it in the NDJSON export.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BusinessRuleError, createGovernedApi, defineEntity, type GovernedContext } from 'cellgate';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { expectError, ids, mint, SECRET, send, serve } from './support.ts';

const common = {
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  version: '1.0.0',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['viewer', 'editor', 'admin'], edit: ['editor', 'admin'], admin: ['admin'] },
} as const;
const Project = defineEntity({
  ...common,
  name: 'Project',
  key: 'pm.project',
  description: 'A project',
  fields: { name: { type: 'string' }, status: { type: 'string', enum: ['ACTIVE', 'CLOSED'] } },
});
const Task = defineEntity({
  ...common,
  name: 'Task',
  key: 'pm.task',
  description: 'A task',
  fields: { title: { type: 'string' }, project_id: { type: 'string', format: 'uuid' } },
});

const dir = mkdtempSync(join(tmpdir(), 'cellgate-change-sets-'));
const storage = sqliteStorage({ filename: join(dir, 'app.db') });
const failures: unknown[] = [];
const api = createGovernedApi({
  storage,
  auth: { secret: SECRET },
  onError: (error) => failures.push(error),
  resources: {
    projects: Project,
    tasks: {
      entity: Task,
      rules: {
        async validate(_input, { next, tx }) {
          if (next === null) return;
          if (next.title === 'explode') throw new TypeError('bug in the rule');
          if (next.title === 'shouting') throw new BusinessRuleError('Titles are not shouted', [{ path: 'title', message: 'Use lower case' }]);
          const project = await tx.projects?.get(String(next.projectId)).catch(() => null);
          if (project?.data.status !== 'ACTIVE') return [{ path: 'projectId', message: 'The project must be ACTIVE' }];
        },
      },
    },
  },
});

const actor = {
  id: ids.admin,
  type: 'user' as const,
  tenantId: ids.tenant,
  roles: ['admin'],
  workspaces: { [ids.ws]: ['admin'] },
  permissions: ['audit:read'],
};
const context: GovernedContext = { actor, scope: { workspaceId: ids.ws } };
const projects = `/v1/workspaces/${ids.ws}/projects`;
const tasks = `/v1/workspaces/${ids.ws}/tasks`;
let server: Awaited<ReturnType<typeof serve>>;
let admin: string;
let active: string;
let closed: string;

beforeAll(async () => {
  await api.migrate();
  server = await serve(api);
  admin = await mint({ sub: ids.admin, roles: ['admin'], workspaces: { [ids.ws]: ['admin'] }, permissions: ['audit:read'] });
  active = (await send(server.url, 'POST', projects, { token: admin, body: { name: 'Open', status: 'ACTIVE' } })).body.data.id;
  closed = (await send(server.url, 'POST', projects, { token: admin, body: { name: 'Shut', status: 'CLOSED' } })).body.data.id;
});

afterAll(async () => {
  await server.close();
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('business rules over HTTP', () => {
  it('refuses a create with 422 BUSINESS_RULE_VIOLATION and details.fields, writing nothing', async () => {
    const answer = await send(server.url, 'POST', tasks, { token: admin, body: { title: 'Plan', projectId: closed } });
    expectError(answer, 422, 'BUSINESS_RULE_VIOLATION');
    expect(answer.body.details).toEqual({ fields: [{ path: 'projectId', message: 'The project must be ACTIVE' }] });
    const thrown = await send(server.url, 'POST', tasks, { token: admin, body: { title: 'shouting', projectId: active } });
    expectError(thrown, 422, 'BUSINESS_RULE_VIOLATION');
    expect(thrown.body).toMatchObject({ message: 'Titles are not shouted', details: { fields: [{ path: 'title', message: 'Use lower case' }] } });
    expect((await send(server.url, 'GET', tasks, { token: admin })).body.meta.total).toBe(0);
  });

  it('refuses a merge PATCH and a JSON Patch that move a task to a closed project', async () => {
    const created = await send(server.url, 'POST', tasks, { token: admin, body: { title: 'Work', projectId: active } });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const merge = await send(server.url, 'PATCH', `${tasks}/${id}`, { token: admin, body: { expectedVersion: 1, projectId: closed } });
    expectError(merge, 422, 'BUSINESS_RULE_VIOLATION');
    const patch = await send(server.url, 'PATCH', `${tasks}/${id}`, {
      token: admin,
      headers: { 'if-match': '"1"' },
      body: { patch: [{ op: 'replace', path: '/projectId', value: closed }] },
    });
    expectError(patch, 422, 'BUSINESS_RULE_VIOLATION');
    const now = await send(server.url, 'GET', `${tasks}/${id}`, { token: admin });
    expect(now.body.data).toMatchObject({ version: 1, projectId: active });
  });

  it('answers a rule that throws anything else with 500 INTERNAL_ERROR, no trace, nothing written', async () => {
    const before = failures.length;
    const total = (await send(server.url, 'GET', tasks, { token: admin })).body.meta.total;
    const answer = await send(server.url, 'POST', tasks, { token: admin, body: { title: 'explode', projectId: active } });
    expectError(answer, 500, 'INTERNAL_ERROR');
    expect(answer.text).not.toContain('bug in the rule');
    expect(failures.length).toBe(before + 1);
    expect(String((failures.at(-1) as Error).message)).toContain('bug in the rule');
    expect((await send(server.url, 'GET', tasks, { token: admin })).body.meta.total).toBe(total);
  });
});

describe('change sets over HTTP', () => {
  let changeSetId: string;
  let written: string[];

  beforeAll(async () => {
    written = await api.transaction(context, async (tx) => {
      const project = await tx.projects.create({ name: 'Launch', status: 'ACTIVE' });
      const task = await tx.tasks.create({ title: 'Kick-off', projectId: project.data.id });
      return [project.data.id, task.data.id];
    });
    const page = await send(server.url, 'GET', `/v1/audit?resourceId=${written[1]}`, { token: admin });
    changeSetId = page.body.data[0].changeSetId;
  });

  it('finds every record of a transaction with GET /v1/audit?changeSetId=', async () => {
    expect(changeSetId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const page = await send(server.url, 'GET', `/v1/audit?changeSetId=${changeSetId}`, { token: admin });
    expect(page.status).toBe(200);
    expect(page.body.data.map((record: { resourceId: string }) => record.resourceId).sort()).toEqual([...written].sort());
    expect(page.body.data.every((record: { changeSetId: string }) => record.changeSetId === changeSetId)).toBe(true);
    // A write on its own has none.
    const alone = await send(server.url, 'GET', `/v1/audit?resourceId=${active}`, { token: admin });
    expect(alone.body.data[0].changeSetId).toBeNull();
  });

  it('keeps the reach of audit reads, and refuses a malformed id with 400', async () => {
    const stranger = await mint({ sub: ids.viewer, workspaces: { [ids.otherWs]: ['admin'] }, permissions: ['audit:read'] });
    const outside = await send(server.url, 'GET', `/v1/audit?changeSetId=${changeSetId}`, { token: stranger });
    expect(outside.status).toBe(200);
    expect(outside.body.data).toEqual([]);
    const noAudit = await mint({ sub: ids.editor, workspaces: { [ids.ws]: ['editor'] } });
    expectError(await send(server.url, 'GET', `/v1/audit?changeSetId=${changeSetId}`, { token: noAudit }), 403, 'FORBIDDEN');
    expectError(await send(server.url, 'GET', '/v1/audit?changeSetId=not-a-uuid', { token: admin }), 400, 'VALIDATION_ERROR');
  });

  it('carries changeSetId in every line of the NDJSON export', async () => {
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 3_600_000).toISOString();
    const answer = await send(server.url, 'GET', `/v1/audit?from=${from}&to=${to}`, { token: admin, headers: { accept: 'application/x-ndjson' } });
    expect(answer.status).toBe(200);
    const lines = answer.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { resourceId: string; changeSetId: string | null });
    expect(lines.filter((line) => written.includes(line.resourceId)).map((line) => line.changeSetId)).toEqual([changeSetId, changeSetId]);
    expect(lines.every((line) => Object.hasOwn(line, 'changeSetId'))).toBe(true);
  });
});
