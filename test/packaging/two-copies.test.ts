/**
 * Two copies of the package in one app (two versions in node_modules, or one bundled into a
 * dependency): a wire error thrown with copy B's CellgateError inside a hook of copy A must still
 * render as its status and envelope, not as a 500. The built `dist/` is installed twice, as
 * `cellgate-a` and `cellgate-b`, and a plain Node script drives them.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, root } from './build.ts';

const run = promisify(execFile);
// Inside the repository (ignored by git) so the copies resolve their dependencies from its node_modules.
let app: string;

beforeAll(async () => {
  await ensureBuilt();
  mkdirSync(join(root, 'test-results'), { recursive: true });
  app = mkdtempSync(join(root, 'test-results', 'two-copies-'));
  for (const copy of ['cellgate-a', 'cellgate-b']) {
    const target = join(app, 'node_modules', copy);
    cpSync(join(root, 'dist'), join(target, 'dist'), { recursive: true, filter: (source) => !source.endsWith('.map') });
    cpSync(join(root, 'package.json'), join(target, 'package.json'));
  }
}, 300_000);

afterAll(() => {
  if (app) rmSync(app, { recursive: true, force: true });
});

const script = `
import * as a from 'cellgate-a';
import * as b from 'cellgate-b';
import { errorResponse } from 'cellgate-a/adapter-kit';
const out = {};
out.distinctClasses = a.CellgateError !== b.CellgateError;
const fromB = new b.CellgateError('FORBIDDEN', 'Not your workspace.', { headers: { 'x-why': 'b' } });
out.instanceofAcrossCopies = [fromB instanceof a.CellgateError, new a.CellgateError('NOT_FOUND', 'x') instanceof b.CellgateError];
out.configurationAcrossCopies = new b.ConfigurationError('options.x', 'bad') instanceof a.ConfigurationError;
out.plainErrorIsNot = [new Error('x') instanceof a.CellgateError, { code: 'NOT_FOUND' } instanceof a.CellgateError, null instanceof a.CellgateError];
class Teapot extends a.CellgateError {}
out.subclassStaysStrict = [new Teapot('CONFLICT', 'x') instanceof Teapot, fromB instanceof Teapot, new Teapot('CONFLICT', 'x') instanceof b.CellgateError];

// Copy A's governed API with a custom authenticator that throws copy B's error.
const api = a.createGovernedApi({
  storage: a.memoryStorage(),
  auth: async () => { throw fromB; },
  resources: [{
    $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
    name: 'Note', description: 'A note.', key: 'copies.note', version: '1.0.0',
    scope: 'workspace-shared', governance_tier: 'tier-1',
    permissions: { view: ['viewer'], edit: ['editor'], admin: ['admin'] },
    fields: { title: { type: 'string' } },
  }],
});
await api.migrate();
const governed = await api(new Request('http://app.test/v1/workspaces/0a000000-0000-4000-8000-000000000002/notes'));
out.governed = { status: governed.status, why: governed.headers.get('x-why'), body: await governed.json() };

// Copy A's choke point with copy B's errors, and with a foreign bug.
const rendered = errorResponse(new b.CellgateError('RATE_LIMITED', 'Slow down.', { headers: { 'retry-after': '3' } }));
out.rendered = { status: rendered.status, retryAfter: rendered.headers.get('retry-after'), body: await rendered.json() };
const bug = errorResponse(new Error('boom'), { onError: () => {} });
out.bug = { status: bug.status, error: (await bug.json()).error };
console.log(JSON.stringify(out));
`;

describe('two copies of cellgate in one app', () => {
  it('each copy recognises the errors of the other', async () => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: app, timeout: 60_000 });
    const out = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(out.distinctClasses).toBe(true);
    expect(out.instanceofAcrossCopies).toEqual([true, true]);
    expect(out.configurationAcrossCopies).toBe(true);
    expect(out.plainErrorIsNot).toEqual([false, false, false]);
    expect(out.subclassStaysStrict).toEqual([true, false, true]);
    expect(out.governed).toEqual({ status: 403, why: 'b', body: { error: 'FORBIDDEN', message: 'Not your workspace.' } });
    expect(out.rendered).toEqual({ status: 429, retryAfter: '3', body: { error: 'RATE_LIMITED', message: 'Slow down.' } });
    expect(out.bug).toEqual({ status: 500, error: 'INTERNAL_ERROR' });
  }, 90_000);
});
