/**
 * What `cellgate validate` reads, through the real command (a spawned `tsx src/cli/index.ts`):
 * `$ref` entity files only from inside the manifest's folder (a path out of it, an absolute path
 * and a symbolic link out of it are refused, and nothing of the file outside is quoted), and
 * document files up to MAX_DOCUMENT_FILE_BYTES, refused past it before they are read whole.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { MAX_DOCUMENT_FILE_BYTES } from '../../../src/limits.ts';
import { crmManifest } from './validate-fixtures.ts';

const root = join(import.meta.dirname, '../../..');
const tsx = join(root, 'node_modules/.bin/tsx');
const cli = join(root, 'src/cli/index.ts');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function validate(...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(tsx, [cli, 'validate', ...args], { cwd: root }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}

/** A secret beside the project folder, the way `.env` files sit next to a checkout. */
const SECRET_TEXT = 'API_KEY: hunter2-do-not-print\nDATABASE_PASSWORD: sw0rdfish\n';

/** A manifest whose first entity is `{ $ref: ref }`. */
function manifestWithRef(ref: string): string {
  const doc = crmManifest();
  const [, ...others] = doc.spec.entities;
  return stringify({ ...doc, spec: { ...doc.spec, entities: [{ $ref: ref }, ...others] } });
}

/** `text` padded with YAML comment lines to `bytes` bytes: still a valid document of the same value. */
function padded(text: string, bytes: number): string {
  const line = `# ${'x'.repeat(97)}\n`;
  const body = `${text}\n${line.repeat(Math.ceil((bytes - text.length) / line.length))}`;
  return body.slice(0, bytes - 1) + '\n';
}

let dir = '';
let project = '';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cellgate-validate-files-'));
  project = join(dir, 'project');
  await mkdir(join(project, 'entities'), { recursive: true });
  await writeFile(join(dir, 'secret.env.yaml'), SECRET_TEXT);
  await writeFile(join(project, 'entities/customer.entity.yaml'), stringify(crmManifest().spec.entities[0]));
  await symlink(join(dir, 'secret.env.yaml'), join(project, 'entities/link.entity.yaml'));
  await symlink(join(project, 'entities/customer.entity.yaml'), join(project, 'entities/inside-link.entity.yaml'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('cellgate validate: $ref stays inside the manifest folder', () => {
  it('refuses ../, an absolute path and a symbolic link out of the folder, quoting nothing of the file outside', async () => {
    const refs = ['../secret.env.yaml', join(dir, 'secret.env.yaml'), './entities/link.entity.yaml', 'entities/../../secret.env.yaml'];
    const runs = await Promise.all(
      refs.map(async (ref, index) => {
        const path = join(project, `outside-${index}.yaml`);
        await writeFile(path, manifestWithRef(ref));
        return validate(path);
      }),
    );
    runs.forEach((run, index) => {
      expect({ ref: refs[index], code: run.code, stdout: run.stdout }).toEqual({ ref: refs[index], code: 2, stdout: '' });
      expect(run.stderr).toMatch(/^cellgate validate: .*outside-\d\.yaml: \$ref ".*" must name a file inside .*project\n$/);
      expect(`${run.stdout}${run.stderr}`).not.toMatch(/hunter2|API_KEY|sw0rdfish|DATABASE_PASSWORD/);
    });
  });

  it('still reads a $ref inside the folder, through a symbolic link that stays inside too', async () => {
    const direct = join(project, 'inside.yaml');
    const linked = join(project, 'inside-linked.yaml');
    await writeFile(direct, manifestWithRef('./entities/customer.entity.yaml'));
    await writeFile(linked, manifestWithRef('entities/inside-link.entity.yaml'));
    expect(await validate(direct, linked)).toEqual({ code: 0, stdout: `${direct}: valid\n${linked}: valid\n`, stderr: '' });
  });
});

describe('cellgate validate: document files are bounded in size', () => {
  it(`refuses a manifest or a $ref entity file over ${MAX_DOCUMENT_FILE_BYTES} bytes with one line and exit 2; one at the bound is read`, async () => {
    const big = join(dir, 'big.yaml');
    await writeFile(big, padded(stringify(crmManifest()), MAX_DOCUMENT_FILE_BYTES + 1));
    await writeFile(join(project, 'entities/huge.entity.yaml'), padded(stringify(crmManifest().spec.entities[0]), MAX_DOCUMENT_FILE_BYTES + 1));
    const hugeRef = join(project, 'huge-ref.yaml');
    await writeFile(hugeRef, manifestWithRef('./entities/huge.entity.yaml'));
    const atBound = join(dir, 'at-bound.yaml');
    await writeFile(atBound, padded(stringify(crmManifest()), MAX_DOCUMENT_FILE_BYTES));
    const [tooBig, tooBigRef, fits] = await Promise.all([validate(big), validate(hugeRef), validate(atBound)]);
    const refusal = (file: string) =>
      new RegExp(`^cellgate validate: .*${file} is larger than ${MAX_DOCUMENT_FILE_BYTES} bytes, the most a document file may hold\\n$`);
    expect([tooBig.code, tooBig.stdout]).toEqual([2, '']);
    expect(tooBig.stderr).toMatch(refusal('big\\.yaml'));
    expect([tooBigRef.code, tooBigRef.stdout]).toEqual([2, '']);
    expect(tooBigRef.stderr).toMatch(refusal('huge\\.entity\\.yaml'));
    expect(fits).toEqual({ code: 0, stdout: 'valid\n', stderr: '' });
  }, 60_000);
});
