/**
 * Issue #30: `cellgate serve --entity <file>` serves an entity document that uses field
 * permissions, so the feature can be tried from the command line with the document alone: the
 * hr role reads the salary, the staff role gets it absent and listed in `meta.hiddenFields`, and
 * the anonymous OpenAPI document leaves it out. `cellgate validate` refuses permissions on a base field.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ids, mint, send } from '../governed/support.ts';

const root = resolve(import.meta.dirname, '../..');
const TSX = resolve(root, 'node_modules/.bin/tsx');
const SECRET = 'field-access-cli-secret-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'cellgate-field-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const document = (fields: Record<string, unknown>) => ({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Person',
  key: 'hr.person',
  version: '1.0.0',
  description: 'A person whose salary only hr sees',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['staff', 'hr'], edit: ['staff', 'hr'], admin: ['hr'] },
  fields,
});

function cellgate(args: string[]) {
  const child = spawn(TSX, ['src/cli/index.ts', ...args], { cwd: root, env: { ...process.env, CELLGATE_JWT_SECRET: SECRET } });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', done));
  return { child, exited, out: () => out, err: () => err };
}

describe('cellgate and field permissions', () => {
  it('serve --entity serves a document with field permissions', async () => {
    const file = join(dir, 'person.entity.json');
    writeFileSync(
      file,
      JSON.stringify(document({ name: { type: 'string' }, salary: { type: 'number', optional: true, permissions: { view: ['hr'], edit: ['hr'] } } })),
    );
    const run = cellgate(['serve', '--entity', file, '--database-url', 'memory:', '--port', '0']);
    try {
      await expect.poll(() => run.out() + run.err(), { timeout: 60_000, interval: 100 }).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
      const url = /listening on (http:\/\/\S+)/.exec(run.out() + run.err())![1]!;
      const as = (role: string) => mint({ secret: SECRET, sub: ids.editor, workspaces: { [ids.ws]: [role] } });
      const people = `/v1/workspaces/${ids.ws}/people`;
      const created = await send(url, 'POST', people, { token: await as('hr'), body: { name: 'Ada', salary: 5200 } });
      expect(created.status, created.text).toBe(201);
      expect(created.body.data.salary).toBe(5200);
      const seen = await send(url, 'GET', `${people}/${created.body.data.id}`, { token: await as('staff') });
      expect(seen.status, seen.text).toBe(200);
      expect({ salary: 'salary' in seen.body.data, hidden: seen.body.meta.hiddenFields }).toEqual({ salary: false, hidden: ['salary'] });
      const refused = await send(url, 'PATCH', `${people}/${created.body.data.id}`, { token: await as('staff'), body: { expectedVersion: 1, salary: 1 } });
      expect({ status: refused.status, path: refused.body.details.fields[0].path }).toEqual({ status: 403, path: 'salary' });
      const openapi = await send(url, 'GET', '/v1/openapi.json');
      expect(Object.keys(openapi.body.components.schemas.Person.properties)).not.toContain('salary');
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  }, 90_000);

  it('validate refuses permissions on a base field, naming its path', async () => {
    const file = join(dir, 'bad.entity.json');
    writeFileSync(file, JSON.stringify(document({ name: { type: 'string' }, version: { type: 'integer', permissions: { view: ['hr'], edit: ['hr'] } } })));
    const run = cellgate(['validate', file]);
    expect(await run.exited).not.toBe(0);
    expect(run.out() + run.err()).toContain('fields.version.permissions');
  }, 60_000);
});
