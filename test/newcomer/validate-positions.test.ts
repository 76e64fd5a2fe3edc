/**
 * `cellgate validate` for a newcomer: every problem with its line and column (in the `$ref` file
 * for an inlined entity), several files in one call, and `--format json` / `--format sarif`.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { run } from '../../src/cli/commands/validate.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cellgate-validate-pos-'));
});

async function cellgate(...args: string[]): Promise<{ code: number; stdout: string }> {
  const out: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void out.push(line));
  try {
    return { code: await run(args), stdout: out.join('\n') };
  } finally {
    log.mockRestore();
  }
}

const ENTITY = `key: customer
name: Customer
pluralName: Customers
fields:
  - key: name
    type: string
    name: Name
  - key: name
    type: string
    name: Again
`;

const MANIFEST = `apiVersion: platform/v1alpha1
kind: Cell
metadata:
  key: crm
  name: CRM
  version: 1.0.0
spec:
  entities:
    - $ref: ./customer.entity.yaml
  pages: []
  mount:
    mountPath: /crm
    landingPage: nowhere
`;

describe('cellgate validate positions and formats', () => {
  it('gives every semantic problem a line and column, following $ref into the entity file', async () => {
    await writeFile(join(dir, 'customer.entity.yaml'), ENTITY);
    await writeFile(join(dir, 'crm.yaml'), MANIFEST);
    const result = await cellgate(join(dir, 'crm.yaml'), '--format', 'json');
    expect(result.code).toBe(1);
    const [report] = JSON.parse(result.stdout) as Array<{ errors: Array<{ field: string; file: string; line: number; column: number }> }>;
    expect(report!.errors.length).toBeGreaterThanOrEqual(2);
    for (const error of report!.errors) {
      expect(error.line, error.field).toBeGreaterThan(0);
      expect(error.column, error.field).toBeGreaterThan(0);
    }
    const duplicate = report!.errors.find((error) => error.file.endsWith('customer.entity.yaml'));
    expect(duplicate, JSON.stringify(report!.errors)).toBeDefined();
    expect(duplicate!.line).toBeGreaterThanOrEqual(5);
    const landing = report!.errors.find((error) => error.field.includes('landingPage'));
    expect(landing).toMatchObject({ line: 13, column: 18 });
  });

  it('validates several files in one call; text lines are file:line:column: field: message', async () => {
    await writeFile(join(dir, 'bad.json'), '{\n  "apiVersion": "v9",\n  "kind": "Cell"\n}\n');
    await writeFile(join(dir, 'customer.entity.yaml'), ENTITY);
    const result = await cellgate(join(dir, 'bad.json'), join(dir, 'customer.entity.yaml'));
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/bad\.json:2:17: apiVersion: /);
    expect(result.stdout).toMatch(/customer\.entity\.yaml:\d+:\d+: .*fields/);
  });

  it('--format sarif prints a SARIF 2.1.0 log with one result per problem', async () => {
    await writeFile(join(dir, 'bad.json'), '{\n  "apiVersion": "v9",\n  "kind": "Cell"\n}\n');
    const result = await cellgate(join(dir, 'bad.json'), '--format', 'sarif');
    const log = JSON.parse(result.stdout) as {
      version: string;
      runs: Array<{
        tool: { driver: { name: string } };
        results: Array<{ level: string; locations: Array<{ physicalLocation: { region: { startLine: number } } }> }>;
      }>;
    };
    expect(log.version).toBe('2.1.0');
    expect(log.runs[0]!.tool.driver.name).toBe('cellgate');
    expect(log.runs[0]!.results.length).toBeGreaterThan(0);
    expect(log.runs[0]!.results[0]!.locations[0]!.physicalLocation.region.startLine).toBe(2);
    expect((await cellgate(join(dir, 'bad.json'), '--format', 'xml')).code).toBe(2);
  });
});
