/**
 * Runs every TypeScript sample of docs/lifecycle.md as a module (each is self-contained and throws
 * when what it shows does not hold), so the documentation cannot drift from the API.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const text = readFileSync(new URL('../../docs/lifecycle.md', import.meta.url), 'utf8');
const samples = [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
const folder = mkdtempSync(join(tmpdir(), 'cellgate-docs-lifecycle-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('docs/lifecycle.md samples', () => {
  it('has the retention, immutability and purge samples', () => expect(samples.length).toBe(3));
  it.each(samples.map((sample, index) => [index + 1, sample] as const))('sample %i runs', async (index, sample) => {
    const file = join(folder, `sample-${index}.ts`);
    writeFileSync(file, `${sample}\nexport {};\n`);
    await expect(import(pathToFileURL(file).href)).resolves.toBeDefined();
  });
});
