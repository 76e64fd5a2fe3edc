/**
 * The API reference builds from the JSDoc of the public entry points without a warning:
 * `typedoc.json` treats warnings as errors, so a `{@link}` to a symbol that is not public, or a
 * public signature that names a type no entry point exports, fails here (docs/contributing.md#api-reference).
 * `--emit none` converts and validates everything but writes no HTML, which keeps the run short.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageEntries } from '../../entries.config.ts';

const repository = resolve(import.meta.dirname, '../..');
const config = JSON.parse(readFileSync(resolve(repository, 'typedoc.json'), 'utf8')) as { entryPoints: string[]; treatWarningsAsErrors: boolean };

/** TypeDoc colours its log; the escape character is spelled out so no control character sits in a regex literal. */
const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

describe('API reference (TypeDoc)', () => {
  it('documents exactly the entry points of the exports map', () => {
    expect([...config.entryPoints].sort()).toEqual(packageEntries.map((entry) => entry.source).sort());
    expect(config.treatWarningsAsErrors).toBe(true);
  });

  it('builds with no warning (broken links, unexported public types)', { timeout: 180_000 }, () => {
    const typedoc = resolve(repository, 'node_modules/typedoc/bin/typedoc');
    const run = spawnSync(process.execPath, [typedoc, '--emit', 'none'], { cwd: repository, encoding: 'utf8' });
    const output = `${run.stdout}${run.stderr}`.replace(ANSI_COLOUR, '');
    expect(output).not.toMatch(/\[(warning|error)\]/);
    expect(run.status).toBe(0);
  });
});
