/**
 * Local mode of the primitive registry: custom primitives read from a project folder's
 * `primitives.yaml`, and `scaffold` writing only inside that folder (docs/decisions/A09.md, docs/decisions/A10.md).
 */
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type CellgateError, ConfigurationError, createPrimitiveRegistry } from 'cellgate';
import { ScaffoldResultSchema } from 'cellgate/schemas';
import { nodeProjectFolder } from 'cellgate/node';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'cellgate-primitives-'));
  folders.push(folder);
  return folder;
}

function write(root: string, path: string, text: string): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
}

const registryFile = (entries: string) => `apiVersion: platform/v1alpha1\nkind: PrimitiveConfig\nprimitives:\n${entries}`;
const ratingContract = `key: rating
version: 2.0.0
label: Rating
category: input
props:
  type: object
  properties:
    max: { type: integer, default: 5 }
    value: { type: number, required: true }
examples:
  - name: four-of-five
    props: { max: 5, value: 4 }
`;

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe('loading a project folder', () => {
  it('registers the contracts listed in primitives.yaml once ready', async () => {
    const root = tempFolder();
    write(root, 'primitives.yaml', registryFile('  - { key: rating, version: 2.0.0, contract: primitives/rating/rating.contract.yaml }\n'));
    write(root, 'primitives/rating/rating.contract.yaml', ratingContract);
    const registry = createPrimitiveRegistry({ projectFolder: nodeProjectFolder(root) });
    expect(registry.local).toBe(true);
    await registry.ready;
    expect(registry.list({ source: 'custom' })).toEqual([expect.objectContaining({ key: 'rating', version: '2.0.0', category: 'input', source: 'custom' })]);
    expect(registry.examples('rating').examples[0]!.name).toBe('four-of-five');
    expect(registry.validateProps('rating', '2.0.0', { value: 3.5 })).toEqual({ valid: true, errors: [] });
    expect(registry.validateProps('rating', undefined, { value: 3, max: 4.5 }).errors).toEqual([
      { field: 'props.max', message: 'Expected integer, received float' },
    ]);
  });

  it('reads before the folder is loaded answer SERVICE_UNAVAILABLE, not a partial catalog', () => {
    const registry = createPrimitiveRegistry({ projectFolder: nodeProjectFolder(tempFolder()) });
    expect(() => registry.list()).toThrow(expect.objectContaining({ code: 'SERVICE_UNAVAILABLE' }));
  });

  it('treats a folder without primitives.yaml as having no custom primitives', async () => {
    const registry = createPrimitiveRegistry({ projectFolder: nodeProjectFolder(tempFolder()) });
    await registry.ready;
    expect(registry.list()).toHaveLength(30);
  });

  it.each([
    [
      'a bad contract',
      'primitives/rating/rating.contract.yaml:props.properties.value.type',
      (root: string) => {
        write(root, 'primitives.yaml', registryFile('  - { key: rating, version: 2.0.0, contract: primitives/rating/rating.contract.yaml }\n'));
        write(root, 'primitives/rating/rating.contract.yaml', ratingContract.replace('type: number', 'type: float'));
      },
    ],
    [
      'a contract outside the folder',
      'primitives.yaml:primitives.0.contract',
      (root: string) => {
        write(root, 'primitives.yaml', registryFile('  - { key: rating, version: 2.0.0, contract: ../elsewhere.yaml }\n'));
      },
    ],
    [
      'a missing contract file',
      'primitives.yaml:primitives.0.contract',
      (root: string) => {
        write(root, 'primitives.yaml', registryFile('  - { key: rating, version: 2.0.0, contract: nowhere.yaml }\n'));
      },
    ],
    [
      'a wrong apiVersion',
      'primitives.yaml:apiVersion',
      (root: string) => {
        write(root, 'primitives.yaml', 'apiVersion: v1\nkind: PrimitiveConfig\nprimitives: []\n');
      },
    ],
    [
      'a key that shadows a core primitive',
      'primitives/badge.yaml:key',
      (root: string) => {
        write(root, 'primitives.yaml', registryFile('  - { key: badge, version: 1.0.0, contract: primitives/badge.yaml }\n'));
        write(root, 'primitives/badge.yaml', ratingContract.replace('key: rating', 'key: badge').replace('2.0.0', '1.0.0'));
      },
    ],
    [
      'a contract whose version differs from the registry',
      'primitives/rating/rating.contract.yaml',
      (root: string) => {
        write(root, 'primitives.yaml', registryFile('  - { key: rating, version: 1.0.0, contract: primitives/rating/rating.contract.yaml }\n'));
        write(root, 'primitives/rating/rating.contract.yaml', ratingContract);
      },
    ],
  ])('refuses %s with a ConfigurationError naming the path', async (_name, path, setup) => {
    const root = tempFolder();
    setup(root);
    const registry = createPrimitiveRegistry({ projectFolder: nodeProjectFolder(root) });
    const error = (await failure(registry.ready)) as ConfigurationError;
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.path).toBe(path);
    expect(() => registry.list()).toThrow(error);
  });

  it('refuses a project folder that does not exist', async () => {
    const error = (await failure(createPrimitiveRegistry({ projectFolder: nodeProjectFolder(join(tempFolder(), 'missing')) }).ready)) as ConfigurationError;
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error.path).toBe('projectFolder');
  });
});

describe('scaffold', () => {
  const request = {
    name: 'kpi-tile',
    label: 'KPI tile',
    description: 'A figure with a caption.',
    category: 'display',
    props: { type: 'object', properties: { caption: { type: 'string' }, value: { type: 'number', required: true } } },
  };

  it('without a project folder returns the contract and files and writes nothing', async () => {
    const before = readdirSync(process.cwd()).sort();
    const registry = createPrimitiveRegistry();
    const result = await registry.scaffold(request);
    expect(ScaffoldResultSchema.parse(result)).toEqual(result);
    expect(result.written).toBe(false);
    expect(result.contract).toMatchObject({ key: 'kpi-tile', version: '0.1.0', label: 'KPI tile', category: 'display', examples: [{ props: { value: 1 } }] });
    expect(result.files.map((file) => file.path)).toEqual(['primitives/kpi-tile/kpi-tile.contract.yaml', 'primitives/kpi-tile/README.md', 'primitives.yaml']);
    expect(parse(result.files[0]!.content)).toEqual(result.contract);
    expect(readdirSync(process.cwd()).sort()).toEqual(before);
    expect(registry.list({ source: 'custom' })).toEqual([]);
  });

  it('in local mode writes the files inside the folder, registers the primitive and reloads', async () => {
    const root = tempFolder();
    const registry = createPrimitiveRegistry({ projectFolder: nodeProjectFolder(root) });
    const result = await registry.scaffold(request);
    expect(result.written).toBe(true);
    for (const file of result.files) expect(readFileSync(join(root, file.path), 'utf8')).toBe(file.content);
    expect(parse(readFileSync(join(root, 'primitives.yaml'), 'utf8'))).toEqual({
      apiVersion: 'platform/v1alpha1',
      kind: 'PrimitiveConfig',
      primitives: [{ key: 'kpi-tile', version: '0.1.0', contract: 'primitives/kpi-tile/kpi-tile.contract.yaml' }],
    });
    expect(registry.get('kpi-tile')).toMatchObject({ source: 'custom', version: '0.1.0' });

    await registry.scaffold({ name: 'second-one', label: 'Second' });
    const reopened = createPrimitiveRegistry({ projectFolder: nodeProjectFolder(root) });
    await reopened.ready;
    expect(reopened.list({ source: 'custom' }).map((entry) => entry.key)).toEqual(['kpi-tile', 'second-one']);
    expect(reopened.validateProps('kpi-tile', '0.1.0', { value: 3, caption: 'Open deals' })).toEqual({ valid: true, errors: [] });
  });

  it.each([
    ['a traversal name', '../x', 'name'],
    ['an absolute name', '/etc/cron.d/x', 'name'],
    ['an upper-case name', 'KpiTile', 'name'],
    ['an empty label', undefined, 'label'],
  ])('refuses %s with VALIDATION_ERROR and writes nothing', async (_case, name, field) => {
    const root = tempFolder();
    const registry = createPrimitiveRegistry({ projectFolder: nodeProjectFolder(root) });
    const body = name === undefined ? { name: 'ok', label: '' } : { name, label: 'X' };
    const error = (await failure(registry.scaffold(body))) as CellgateError;
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details).toEqual({ fields: [expect.objectContaining({ path: field })] });
    expect(readdirSync(root)).toEqual([]);
  });

  it('refuses a core name, an existing primitive and an existing file with CONFLICT, writing nothing', async () => {
    const root = tempFolder();
    const registry = createPrimitiveRegistry({ projectFolder: nodeProjectFolder(root) });
    expect(await failure(registry.scaffold({ name: 'badge', label: 'Badge' }))).toMatchObject({ code: 'CONFLICT' });
    await registry.scaffold({ name: 'kpi-tile', label: 'KPI' });
    expect(await failure(registry.scaffold({ name: 'kpi-tile', label: 'KPI again' }))).toMatchObject({ code: 'CONFLICT' });

    write(root, 'primitives/stray/stray.contract.yaml', 'hand-written: true\n');
    const registryBefore = readFileSync(join(root, 'primitives.yaml'), 'utf8');
    expect(await failure(registry.scaffold({ name: 'stray', label: 'Stray' }))).toMatchObject({ code: 'CONFLICT' });
    expect(readFileSync(join(root, 'primitives/stray/stray.contract.yaml'), 'utf8')).toBe('hand-written: true\n');
    expect(existsSync(join(root, 'primitives/stray/README.md'))).toBe(false);
    expect(readFileSync(join(root, 'primitives.yaml'), 'utf8')).toBe(registryBefore);
  });

  it('refuses to follow a symbolic link out of the folder', async () => {
    const root = tempFolder();
    const outside = tempFolder();
    symlinkSync(outside, join(root, 'primitives'));
    const registry = createPrimitiveRegistry({ projectFolder: nodeProjectFolder(root) });
    const error = (await failure(registry.scaffold({ name: 'escape', label: 'Escape' }))) as CellgateError;
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(readdirSync(outside)).toEqual([]);
    expect(existsSync(join(root, 'primitives.yaml'))).toBe(false);
  });

  it('refuses a primitives.yaml that is a symbolic link leading outside', async () => {
    const root = tempFolder();
    const outside = tempFolder();
    writeFileSync(join(outside, 'target.yaml'), registryFile(''));
    symlinkSync(join(outside, 'target.yaml'), join(root, 'primitives.yaml'));
    const registry = createPrimitiveRegistry({ projectFolder: nodeProjectFolder(root) });
    // Reads stay inside the folder after links are resolved, so the registry file is refused on
    // load, and a scaffold (which waits for the load) writes nothing through the link.
    const loading = (await failure(registry.ready)) as ConfigurationError;
    expect(loading).toBeInstanceOf(ConfigurationError);
    expect(loading.message).toMatch(/resolves outside the project folder/);
    const error = await failure(registry.scaffold({ name: 'linked', label: 'Linked' }));
    expect(error).toBe(loading);
    expect(readFileSync(join(outside, 'target.yaml'), 'utf8')).toBe(registryFile(''));
    expect(existsSync(join(root, 'primitives/linked'))).toBe(false);
  });

  it('a label with line breaks stays inside the header comment and injects no YAML key', async () => {
    const root = tempFolder();
    const registry = createPrimitiveRegistry({ projectFolder: nodeProjectFolder(root) });
    const label = 'Evil"\nkey: injected\nversion: 9.9.9\r\n# primitives:\u2028x';
    const result = await registry.scaffold({ name: 'evil-tile', label });
    const text = readFileSync(join(root, 'primitives/evil-tile/evil-tile.contract.yaml'), 'utf8');
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^# Contract of the "Evil" key: injected version: 9\.9\.9 # primitives: x" primitive\./);
    expect(lines.filter((line) => /^key:/.test(line))).toEqual(['key: evil-tile']);
    expect(parse(text)).toEqual(result.contract);
    expect(result.contract).toMatchObject({ key: 'evil-tile', version: '0.1.0', label });
    expect(readFileSync(join(root, 'primitives/evil-tile/README.md'), 'utf8').split('\n')[0]).toBe(
      '# Evil" key: injected version: 9.9.9 # primitives: x (`evil-tile`)',
    );
    const reopened = createPrimitiveRegistry({ projectFolder: nodeProjectFolder(root) });
    await reopened.ready;
    expect(reopened.get('evil-tile')).toMatchObject({ version: '0.1.0', label });
  });

  it('five concurrent scaffolds all land in primitives.yaml', async () => {
    const root = tempFolder();
    const registry = createPrimitiveRegistry({ projectFolder: nodeProjectFolder(root) });
    const names = ['tile-a', 'tile-b', 'tile-c', 'tile-d', 'tile-e'];
    const results = await Promise.all(names.map((name) => registry.scaffold({ name, label: name })));
    expect(results.every((result) => result.written)).toBe(true);
    const file = parse(readFileSync(join(root, 'primitives.yaml'), 'utf8')) as { primitives: Array<{ key: string }> };
    expect(file.primitives.map((entry) => entry.key)).toEqual(names);
    const reopened = createPrimitiveRegistry({ projectFolder: nodeProjectFolder(root) });
    await reopened.ready;
    expect(reopened.list({ source: 'custom' }).map((entry) => entry.key)).toEqual(names);
    // No temporary file is left behind by the replace-through-rename.
    expect(readdirSync(root).sort()).toEqual(['primitives', 'primitives.yaml']);
  });

  it('a failed scaffold does not block the next one for the same folder', async () => {
    const root = tempFolder();
    const registry = createPrimitiveRegistry({ projectFolder: nodeProjectFolder(root) });
    const [bad, good] = await Promise.allSettled([
      registry.scaffold({ name: 'badge', label: 'Core name' }),
      registry.scaffold({ name: 'fine-tile', label: 'Fine' }),
    ]);
    expect(bad.status).toBe('rejected');
    expect(good.status).toBe('fulfilled');
  });

  it('refuses to replace a primitives.yaml with another hard link (e.g. to a file outside the folder)', async () => {
    const root = tempFolder();
    const outside = tempFolder();
    writeFileSync(join(outside, 'victim.yaml'), registryFile(''));
    linkSync(join(outside, 'victim.yaml'), join(root, 'primitives.yaml'));
    expect(statSync(join(root, 'primitives.yaml')).nlink).toBe(2);
    const registry = createPrimitiveRegistry({ projectFolder: nodeProjectFolder(root) });
    await registry.ready;
    const error = (await failure(registry.scaffold({ name: 'linked', label: 'Linked' }))) as CellgateError;
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', details: { fields: [{ path: 'name', message: 'Target has other hard links' }] } });
    expect(readFileSync(join(outside, 'victim.yaml'), 'utf8')).toBe(registryFile(''));
    expect(existsSync(join(root, 'primitives/linked'))).toBe(false);
  });
});
