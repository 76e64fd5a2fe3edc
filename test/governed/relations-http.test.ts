/**
 * Relations over HTTP on a real server and a real SQLite file (docs/entities.md#relations):
 * refusals in the documented envelope, the list filter, restrict and cascade on DELETE, the
 * OpenAPI document, and the start-up errors of references that cannot resolve.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError, createGovernedApi, defineEntity, loadEntity, memoryStorage } from 'cellgate';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { RelationComment, RelationLabel, RelationMilestone, RelationProject, RelationTask } from '../../src/testing/storage-conformance-references.ts';
import { expectError, ids, mint, send, serve, SECRET } from './support.ts';

const dir = mkdtempSync(join(tmpdir(), 'cellgate-relations-'));
const storage = sqliteStorage({ filename: join(dir, 'relations.db') });
const api = createGovernedApi({
  storage,
  auth: { secret: SECRET },
  resources: { projects: RelationProject, tasks: RelationTask, comments: RelationComment, milestones: RelationMilestone, labels: RelationLabel },
});
let url = '';
let close: () => Promise<void> = async () => {};
let token = '';
const projects = `/v1/workspaces/${ids.ws}/projects`;
const milestones = `/v1/workspaces/${ids.ws}/milestones`;
const tasks = `/v1/workspaces/${ids.ws}/cells/${ids.cell}/tasks`;

beforeAll(async () => {
  await api.migrate();
  ({ url, close } = await serve(api));
  token = await mint({ workspaces: { [ids.ws]: ['admin'] }, permissions: ['audit:read', 'audit:restore'] });
});
afterAll(async () => {
  await close();
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

const post = async (path: string, body: unknown) => send(url, 'POST', path, { token, body });

describe('references over HTTP', () => {
  it('refuses a create and a JSON Patch naming no live record: 422 REFERENCE_NOT_FOUND with details.fields', async () => {
    const missing = await post(tasks, { title: 't', projectId: crypto.randomUUID() });
    expectError(missing, 422, 'REFERENCE_NOT_FOUND');
    expect(missing.body.details.fields).toEqual([{ path: 'projectId', message: expect.stringContaining('relations.project') }]);
    const project = await post(projects, { name: 'p' });
    const task = await post(tasks, { title: 't', projectId: project.body.data.id });
    expect(task.status, task.text).toBe(201);
    const patched = await send(url, 'PATCH', `${tasks}/${task.body.data.id}`, {
      token,
      body: { expectedVersion: 1, patch: [{ op: 'replace', path: '/projectId', value: crypto.randomUUID() }] },
    });
    expectError(patched, 422, 'REFERENCE_NOT_FOUND');
    expect((await send(url, 'GET', `${tasks}/${task.body.data.id}`, { token })).body.data.version).toBe(1);
  });

  it('filters a list by a reference field, and refuses a value that is not a UUID', async () => {
    const a = await post(projects, { name: 'a' });
    const b = await post(projects, { name: 'b' });
    const first = await post(milestones, { title: 'one', projectId: a.body.data.id });
    await post(milestones, { title: 'two', projectId: b.body.data.id });
    const listed = await send(url, 'GET', `${milestones}?projectId=${a.body.data.id}`, { token });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data.map((row: { id: string }) => row.id)).toEqual([first.body.data.id]);
    expectError(await send(url, 'GET', `${milestones}?projectId=nope`, { token }), 400, 'VALIDATION_ERROR');
  });

  it('DELETE answers 409 REFERENCED for a restrict reference, and cascades otherwise', async () => {
    const held = await post(projects, { name: 'held' });
    await post(milestones, { title: 'm', projectId: held.body.data.id });
    const refused = await send(url, 'DELETE', `${projects}/${held.body.data.id}`, { token, headers: { 'if-match': '"1"' } });
    expectError(refused, 409, 'REFERENCED');
    expect(refused.body.details).toMatchObject({ count: 1, referencedBy: [{ resource: 'milestones', field: 'projectId', count: 1 }] });

    const free = await post(projects, { name: 'free' });
    const task = await post(tasks, { title: 't', projectId: free.body.data.id });
    const deleted = await send(url, 'DELETE', `${projects}/${free.body.data.id}`, { token, headers: { 'if-match': '"1"' } });
    expect(deleted.status, deleted.text).toBe(200);
    expect((await send(url, 'GET', `${tasks}/${task.body.data.id}`, { token })).status).toBe(404);
  });

  it('describes references and their refusals in the OpenAPI document', async () => {
    const document = (await send(url, 'GET', '/v1/openapi.json', { token })).body;
    const text = JSON.stringify(document);
    expect(text).toContain('"x-cellgate-references":{"entity":"relations.project","onDelete":"cascade"}');
    expect(text).toContain('REFERENCE_NOT_FOUND');
    expect(text).toContain('REFERENCED');
    expect(JSON.stringify(document.paths)).toContain('"name":"projectId","in":"query"');
  });
});

describe('include', () => {
  it('answers the referenced record beside the record, one level, and refuses an unknown name', async () => {
    const project = await post(projects, { name: 'shown' });
    const task = await post(tasks, { title: 't', projectId: project.body.data.id });
    const read = await send(url, 'GET', `${tasks}/${task.body.data.id}?include=project`, { token });
    expect(read.status, read.text).toBe(200);
    expect(read.body.data.id).toBe(task.body.data.id);
    expect(read.body.included.project).toMatchObject({ id: project.body.data.id, name: 'shown', version: 1 });
    expect((await send(url, 'GET', `${tasks}/${task.body.data.id}`, { token })).body).not.toHaveProperty('included');
    const unknown = await send(url, 'GET', `${tasks}/${task.body.data.id}?include=owner`, { token });
    expectError(unknown, 400, 'VALIDATION_ERROR');
    expect(unknown.body.details.fields[0]).toEqual({ path: 'include', message: 'Unknown include "owner"' });
    expectError(await send(url, 'GET', `${tasks}/${task.body.data.id}?include=project,project`, { token }), 400, 'VALIDATION_ERROR');
    const past = await send(url, 'GET', `${tasks}/${task.body.data.id}?include=project&asOf=${new Date().toISOString()}`, { token });
    expectError(past, 400, 'VALIDATION_ERROR');
    expect(past.body.details.fields[0].path).toBe('include');
  });

  it('answers the id alone where the caller may not read the target entity', async () => {
    const lead = { view: ['lead'], edit: ['lead'], admin: ['lead'] };
    const team = { view: ['member', 'lead'], edit: ['member', 'lead'], admin: ['lead'] };
    const Secret = loadEntity({ ...RelationProject, key: 'hidden.project', permissions: lead });
    const Item = loadEntity({
      ...RelationMilestone,
      key: 'hidden.item',
      name: 'Item',
      permissions: team,
      fields: { title: { type: 'string' }, project_id: { type: 'string', format: 'uuid', references: { entity: 'hidden.project' } } },
    });
    const hidden = createGovernedApi({ storage, auth: { secret: SECRET }, resources: { secrets: Secret, items: Item } });
    await hidden.migrate();
    const as = (role: string) => ({
      actor: { id: ids.editor, type: 'user' as const, tenantId: ids.tenant, roles: [], workspaces: { [ids.ws]: [role] }, permissions: [] },
      scope: { workspaceId: ids.ws },
    });
    const secret = await hidden.resources.secrets!.service.create(as('lead'), { name: 'classified' });
    const item = await hidden.resources.items!.service.create(as('member'), { title: 'i', projectId: secret.data.id });
    const asMember = await hidden.resources.items!.service.get(as('member'), item.data.id, { include: ['project'] });
    expect(asMember.included).toEqual({ project: { id: secret.data.id } });
    const asLead = await hidden.resources.items!.service.get(as('lead'), item.data.id, { include: ['project'] });
    expect(asLead.included?.project).toMatchObject({ id: secret.data.id, name: 'classified' });
  });
});

describe('references at start-up', () => {
  const referencing = (entity: string, scope: 'system-global' | 'workspace-shared' | 'cell-isolated' = 'workspace-shared') =>
    defineEntity({
      $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
      name: 'Note',
      key: 'startup.note',
      version: '1.0.0',
      description: 'A note',
      scope,
      governance_tier: 'tier-2',
      permissions: { view: ['admin'], edit: ['admin'], admin: ['admin'] },
      fields: { text: { type: 'string' }, target_id: { type: 'string', format: 'uuid', references: { entity } } },
    });
  const build = (resources: Record<string, unknown>) => () =>
    createGovernedApi({ storage, auth: { secret: SECRET }, resources: resources as Record<string, ReturnType<typeof referencing>> });
  const refusal = (fn: () => unknown): ConfigurationError => {
    try {
      fn();
    } catch (error) {
      if (error instanceof ConfigurationError) return error;
      throw error;
    }
    return expect.fail('expected a ConfigurationError');
  };

  it('names the field of a reference to an entity the API does not serve', () => {
    const error = refusal(build({ notes: referencing('relations.nothing') }));
    expect(error.path).toBe('resources.notes.entity.fields.target_id.references.entity');
    expect(error.message).toContain('relations.nothing');
  });

  it('refuses a reference across scopes no record can satisfy', () => {
    const error = refusal(build({ notes: referencing('relations.task'), tasks: RelationTask, projects: RelationProject }));
    expect(error.path).toBe('resources.notes.entity.fields.target_id.references.entity');
    expect(error.message).toMatch(/workspace-shared record cannot reference a cell-isolated one/);
    expect(refusal(build({ notes: referencing('relations.project', 'system-global'), projects: RelationProject })).message).toMatch(/no workspace/);
  });

  it('asks for the major when the API serves several, and accepts a pinned one', () => {
    const v2 = defineEntity({ ...RelationProject, version: '2.0.0' } as never);
    const resources = { notes: referencing('relations.project'), projects: RelationProject, 'projects-v2': v2 };
    expect(refusal(build(resources)).message).toContain('relations.project@v1');
    expect(build({ ...resources, notes: referencing('relations.project@v2') })).not.toThrow();
    expect(refusal(build({ ...resources, notes: referencing('relations.project@v3') })).message).toContain('v1, v2');
  });

  it('lets a resource on its own reference itself only', async () => {
    const { createGovernedResource } = await import('cellgate');
    const tree = defineEntity({
      $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
      name: 'Node',
      key: 'startup.node',
      version: '1.0.0',
      description: 'A tree node',
      scope: 'workspace-shared',
      governance_tier: 'tier-2',
      permissions: { view: ['admin'], edit: ['admin'], admin: ['admin'] },
      fields: { parent_id: { type: 'string', format: 'uuid', nullable: true, references: { entity: 'startup.node', on_delete: 'set_null' } } },
    });
    expect(() => createGovernedResource({ entity: tree, storage, auth: { secret: SECRET } })).not.toThrow();
    const error = refusal(() => createGovernedResource({ entity: RelationTask, storage, auth: { secret: SECRET } }));
    expect(error.path).toBe('entity.fields.project_id.references.entity');
  });
});

describe('include of a reference field hidden by field access', () => {
  const base = {
    $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
    version: '1.0.0',
    scope: 'workspace-shared',
    governance_tier: 'tier-2',
    permissions: { view: ['viewer', 'admin'], edit: ['admin'], admin: ['admin'] },
  } as const;
  const Account = defineEntity({ ...base, name: 'Account', key: 'hidden.account', description: 'An account.', fields: { name: { type: 'string' } } });
  const Deal = defineEntity({
    ...base,
    name: 'Deal',
    key: 'hidden.deal',
    description: 'A deal whose account only admins may see.',
    fields: {
      title: { type: 'string' },
      account_id: {
        type: 'string',
        format: 'uuid',
        nullable: true,
        references: { entity: 'hidden.account' },
        permissions: { view: ['admin'], edit: ['admin'] },
      },
    },
  });

  it('refuses it for a reader who may not view the field exactly as an unknown name, before reading anything', async () => {
    const hiddenApi = createGovernedApi({ storage: memoryStorage(), auth: { secret: SECRET }, resources: { accounts: Account, deals: Deal } });
    await hiddenApi.migrate();
    const server = await serve(hiddenApi);
    try {
      const admin = await mint({ workspaces: { [ids.ws]: ['admin'] } });
      const viewer = await mint({ workspaces: { [ids.ws]: ['viewer'] } });
      const at = (name: string) => `/v1/workspaces/${ids.ws}/${name}`;
      const account = await send(server.url, 'POST', at('accounts'), { token: admin, body: { name: 'Secret Corp' } });
      const deal = await send(server.url, 'POST', at('deals'), { token: admin, body: { title: 'd', accountId: account.body.data.id } });
      expect(deal.status, deal.text).toBe(201);
      const shown = await send(server.url, 'GET', `${at('deals')}/${deal.body.data.id}?include=account`, { token: admin });
      expect(shown.body.included.account).toMatchObject({ id: account.body.data.id, name: 'Secret Corp' });
      // The viewer sees neither the field nor, through include, its target or id.
      const plain = await send(server.url, 'GET', `${at('deals')}/${deal.body.data.id}`, { token: viewer });
      expect(plain.body.meta.hiddenFields).toEqual(['accountId']);
      const hidden = await send(server.url, 'GET', `${at('deals')}/${deal.body.data.id}?include=account`, { token: viewer });
      const unknown = await send(server.url, 'GET', `${at('deals')}/${deal.body.data.id}?include=nothing`, { token: viewer });
      expectError(hidden, 400, 'VALIDATION_ERROR');
      expect(hidden.text).not.toContain(account.body.data.id);
      expect(hidden.body.details).toEqual({ fields: [{ path: 'include', message: 'Unknown include "account"' }] });
      expect(unknown.body.details).toEqual({ fields: [{ path: 'include', message: 'Unknown include "nothing"' }] });
      expect(hidden.body.message).toBe(unknown.body.message);
    } finally {
      await server.close();
    }
  });
});
