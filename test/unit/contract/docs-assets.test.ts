/**
 * The Swagger UI files shipped with cellgate (src/contract/docs/swagger-ui, copied to
 * dist/swagger-ui by the build): every file the docs page loads is there, each is the file its
 * README names by SHA-256 (so an upgrade updates both), and the default loader reads them.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCS_ASSETS, readSwaggerUiFile } from '../../../src/contract/docs/assets.ts';

const folder = join(import.meta.dirname, '../../../src/contract/docs/swagger-ui');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('shipped Swagger UI files', () => {
  it('are the files the README lists, byte for byte, with the licence and notices', () => {
    const listed = Object.fromEntries(
      [...readFileSync(join(folder, 'README.md'), 'utf8').matchAll(/^\| `([^`]+)` \| `([0-9a-f]{64})` \|$/gm)].map(([, file, digest]) => [file, digest]),
    );
    const files = readdirSync(folder).filter((file) => file !== 'README.md');
    expect(Object.keys(listed).sort()).toEqual(files.sort());
    for (const file of files) expect(sha256(readFileSync(join(folder, file))), file).toBe(listed[file]);
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'NOTICE', 'swagger-ui-bundle.js.LICENSE.txt']));
  });

  it('hold every asset the page loads that is not cellgate’s own, and the default loader reads them', async () => {
    for (const file of Object.keys(DOCS_ASSETS).filter((name) => name !== 'docs-init.js')) {
      const body = await readSwaggerUiFile(file);
      expect(body, file).toBeInstanceOf(Uint8Array);
      expect(sha256(body as Uint8Array), file).toBe(sha256(readFileSync(join(folder, file))));
    }
  });
});
