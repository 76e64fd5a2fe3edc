/**
 * Runs every TypeScript sample of docs/observability.md as a module (each is self-contained and
 * throws when what it shows does not hold), so the documentation cannot drift from the API.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const text = readFileSync(new URL('../../docs/observability.md', import.meta.url), 'utf8');
const samples = [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
const folder = mkdtempSync(join(tmpdir(), 'cellgate-docs-observability-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('docs/observability.md samples', () => {
  it('has samples', () => expect(samples.length).toBeGreaterThanOrEqual(2));
  it.each(samples.map((sample, index) => [index + 1, sample] as const))('sample %i runs', async (index, sample) => {
    const file = join(folder, `sample-${index}.ts`);
    writeFileSync(file, `${sample}\nexport {};\n`);
    await expect(import(pathToFileURL(file).href)).resolves.toBeDefined();
  });
});
