/**
 * `cellgate validate <file>` on temporary files: the exit codes 0/1/2 through a real spawned
 * process, the other behaviour through the command's `run` in this process (spawning tsx costs
 * seconds per call).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { stringify } from 'yaml';
import { run } from '../../../src/cli/commands/validate.ts';
import { crmManifest } from './validate-fixtures.ts';

const root = join(import.meta.dirname, '../../..');
const tsx = join(root, 'node_modules/.bin/tsx');
const cli = join(root, 'src/cli/index.ts');
let dir = '';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Spawns `tsx src/cli/index.ts validate …`. */
function spawned(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(tsx, [cli, 'validate', ...args], { cwd: dir }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs the command in this process, capturing what it prints. */
async function cellgate(...args: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void out.push(`${line}\n`));
  const error = vi.spyOn(console, 'error').mockImplementation((line: string) => void err.push(`${line}\n`));
  try {
    const code = await run(args);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

async function file(name: string, content: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cellgate-validate-'));
});
afterEach(() => {
  vi.restoreAllMocks();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('cellgate validate (spawned)', () => {
  it('exits 0 / 1 / 2 for valid, invalid and unreadable input', async () => {
    const valid = await file('spawn-valid.yaml', stringify(crmManifest()));
    const invalid = await file('spawn-invalid.json', JSON.stringify({ ...crmManifest(), kind: 'Other' }));
    const [ok, bad, missing] = await Promise.all([spawned(valid), spawned(invalid), spawned(join(dir, 'missing.yaml'))]);
    expect(ok).toEqual({ code: 0, stdout: 'valid\n', stderr: '' });
    expect(bad).toMatchObject({ code: 1, stderr: '' });
    expect(bad.stdout).toMatch(/^.*spawn-invalid\.json:1:\d+: kind: Invalid literal value, expected "Cell"\n$/);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^cellgate validate: cannot read .*missing\.yaml: ENOENT\n$/);
  });
});

describe('cellgate validate', () => {
  it('prints "valid" and exits 0 for a valid YAML manifest with $schema', async () => {
    const path = await file('crm.yaml', stringify({ $schema: 'https://example.test/manifest.json', ...crmManifest() }));
    expect(await cellgate(path)).toEqual({ code: 0, stdout: 'valid\n', stderr: '' });
  });

  it('prints one "field: message" line per problem and exits 1 for an invalid JSON manifest', async () => {
    const doc = crmManifest() as { metadata: { key: string }; apiVersion: string };
    doc.apiVersion = 'v2';
    const path = await file('bad.json', JSON.stringify(doc));
    const wrong = await cellgate(path);
    expect([wrong.code, wrong.stderr]).toEqual([1, '']);
    expect(wrong.stdout).toMatch(/bad\.json:1:\d+: apiVersion: Invalid literal value, expected "platform\/v1alpha1"\n$/);
    doc.apiVersion = 'platform/v1alpha1';
    doc.metadata.key = 'Bad Key';
    await writeFile(path, JSON.stringify(doc));
    expect((await cellgate(path)).stdout).toMatch(/bad\.json:1:\d+: metadata\.key: metadata\.key "Bad Key" must be snake_case \(e\.g\. "customer_portal"\)\n$/);
  });

  it('inlines spec.entities $ref files relative to the manifest', async () => {
    await mkdir(join(dir, 'entities'), { recursive: true });
    const doc = crmManifest();
    const [customer, ...others] = doc.spec.entities;
    await file('entities/customer.entity.yaml', stringify({ $schema: 'x', ...customer }));
    const path = await file('ref.yaml', stringify({ ...doc, spec: { ...doc.spec, entities: [{ $ref: './entities/customer.entity.yaml' }, ...others] } }));
    expect(await cellgate(path)).toEqual({ code: 0, stdout: 'valid\n', stderr: '' });
  });

  it('detects a manifest-form entity and a standalone entity definition document', async () => {
    const entity = await file('customer.entity.yaml', stringify({ $schema: 'x', ...crmManifest().spec.entities[0] }));
    expect(await cellgate(entity)).toEqual({ code: 0, stdout: 'valid\n', stderr: '' });
    const document = await file('doc.json', JSON.stringify({ governance_tier: 'tier-1' }));
    const run = await cellgate(document);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('permissions: Required');
    expect(run.stdout).not.toContain('apiVersion');
    const example = join(root, 'examples/entities/invoice.entity.json');
    const exists = await readFile(example).then(
      () => true,
      () => false,
    );
    if (exists) expect(await cellgate(example)).toEqual({ code: 0, stdout: 'valid\n', stderr: '' });
  });

  it('--kind overrides detection', async () => {
    const path = await file('page.json', JSON.stringify({ key: 'x', name: 'X', pluralName: 'Xs', fields: [] }));
    expect((await cellgate(path, '--kind', 'manifest')).stdout).toContain("root: Unrecognized key(s) in object: 'key', 'name', 'pluralName', 'fields'");
    expect(await cellgate(path, '--kind', 'entity')).toEqual({ code: 0, stdout: 'valid\n', stderr: '' });
  });

  it('bad arguments and unreadable files exit 2 with one line', async () => {
    const broken = await file('broken.yaml', 'a: [1, 2\nb: }');
    for (const args of [[], [join(dir, 'missing.yaml')], [broken], ['a.yaml', 'b.yaml'], ['--kind', 'page', broken], ['--nope']]) {
      const run = await cellgate(...args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/^cellgate validate: /);
    }
  });

  it('--help prints usage and exits 0', async () => {
    const run = await cellgate('--help');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: cellgate validate');
  });
});
