/**
 * Issue #28: `cellgate serve --entity a.json --entity b.json` serves related entities from their
 * documents alone (references checked, deletes cascaded), a document whose reference names no
 * served entity stops the start with the field's path, and `cellgate validate` knows `references`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ids, mint, send } from './support.ts';

const root = resolve(import.meta.dirname, '../..');
const TSX = resolve(root, 'node_modules/.bin/tsx');
const SECRET = 'relations-cli-secret-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'cellgate-relations-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const document = (name: string, key: string, fields: Record<string, unknown>) => ({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name,
  key,
  version: '1.0.0',
  description: `A ${name.toLowerCase()}`,
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['member'], edit: ['member'], admin: ['member'] },
  fields,
});
const PROJECT = document('Project', 'pm.project', { name: { type: 'string' } });
const TASK = document('Task', 'pm.task', {
  title: { type: 'string' },
  project_id: { type: 'string', format: 'uuid', references: { entity: 'pm.project', on_delete: 'cascade' } },
});

function write(name: string, value: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(value));
  return file;
}

function cellgate(args: string[]) {
  const child = spawn(TSX, ['src/cli/index.ts', ...args], { cwd: root, env: { ...process.env, CELLGATE_JWT_SECRET: SECRET } });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', done));
  return { child, exited, out: () => out };
}

describe('cellgate and references', () => {
  it('serve --entity a.json --entity b.json serves related entities', async () => {
    const run = cellgate([
      'serve',
      '--entity',
      write('project.json', PROJECT),
      '--entity',
      write('task.json', TASK),
      '--database-url',
      'memory:',
      '--port',
      '0',
    ]);
    try {
      await expect.poll(run.out, { timeout: 60_000, interval: 100 }).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
      const url = /listening on (http:\/\/\S+)/.exec(run.out())![1]!;
      const token = await mint({ secret: SECRET, sub: ids.editor, workspaces: { [ids.ws]: ['member'] } });
      const at = (resource: string) => `/v1/workspaces/${ids.ws}/${resource}`;
      const refused = await send(url, 'POST', at('tasks'), { token, body: { title: 't', projectId: crypto.randomUUID() } });
      expect({ status: refused.status, error: refused.body.error, path: refused.body.details.fields[0].path }).toEqual({
        status: 422,
        error: 'REFERENCE_NOT_FOUND',
        path: 'projectId',
      });
      const project = await send(url, 'POST', at('projects'), { token, body: { name: 'p' } });
      const task = await send(url, 'POST', at('tasks'), { token, body: { title: 't', projectId: project.body.data.id } });
      expect(task.status, task.text).toBe(201);
      const deleted = await send(url, 'DELETE', `${at('projects')}/${project.body.data.id}`, { token, headers: { 'if-match': '"1"' } });
      expect(deleted.status, deleted.text).toBe(200);
      expect((await send(url, 'GET', `${at('tasks')}/${task.body.data.id}`, { token })).status).toBe(404);
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  }, 90_000);

  it('serve stops at start-up when a reference names an entity it does not serve, naming the field', async () => {
    const run = cellgate(['serve', '--entity', write('task-alone.json', TASK), '--database-url', 'memory:', '--port', '0']);
    const code = await run.exited;
    expect(code).not.toBe(0);
    expect(run.out()).toContain('fields.project_id.references.entity');
    expect(run.out()).toContain('pm.project');
  }, 60_000);

  it('validate refuses set_null on a field that cannot be null, naming its path', async () => {
    const bad = document('Task', 'pm.task', {
      project_id: { type: 'string', format: 'uuid', references: { entity: 'pm.project', on_delete: 'set_null' } },
    });
    const run = cellgate(['validate', write('bad.json', bad)]);
    expect(await run.exited).not.toBe(0);
    expect(run.out()).toContain('fields.project_id.references.on_delete');
  }, 60_000);
});
