/**
 * `projectFolder` (local mode) through the handler: primitives from the folder's `primitives.yaml`
 * are served from the first request on (the handler waits for the folder to load), and a broken
 * `primitives.yaml` becomes a 500 envelope for the client and a ConfigurationError for `onError`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from 'cellgate';
import { nodeProjectFolder } from 'cellgate/node';
import { call, envelope, handlerWith, json } from './support.ts';

const root = mkdtempSync(join(tmpdir(), 'cellgate-local-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function folder(name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

describe('local mode (projectFolder)', () => {
  it('serves the custom primitives of primitives.yaml from the first request', async () => {
    const projectDir = folder('ok', {
      'primitives.yaml':
        'apiVersion: platform/v1alpha1\nkind: PrimitiveConfig\nprimitives:\n  - { key: rating, version: 2.0.0, contract: rating.contract.yaml }\n',
      'rating.contract.yaml':
        'key: rating\nversion: 2.0.0\nlabel: Rating\ncategory: input\nprops:\n  type: object\n  properties:\n    value: { type: number, required: true }\n',
    });
    const handler = handlerWith({ projectFolder: nodeProjectFolder(projectDir) });
    // No await of `ready` here: the handler itself waits for the folder.
    const custom = await json<Array<{ key: string; source: string }>>(call(handler, '/api/primitives?source=custom'));
    expect(custom.map((p) => [p.key, p.source])).toEqual([['rating', 'custom']]);
    expect(await json(call(handler, '/api/primitives/rating'))).toMatchObject({ key: 'rating', version: '2.0.0', source: 'custom' });
  });

  it('a broken primitives.yaml answers 500 INTERNAL_ERROR and reports a ConfigurationError to onError', async () => {
    const projectDir = folder('broken', { 'primitives.yaml': 'apiVersion: platform/v1alpha1\nkind: Nope\n' });
    const seen: unknown[] = [];
    const handler = handlerWith({ projectFolder: nodeProjectFolder(projectDir), onError: (error) => seen.push(error) });
    await expect(handler.context.ready).rejects.toBeInstanceOf(ConfigurationError);
    const body = await envelope(call(handler, '/health'), 500, 'INTERNAL_ERROR');
    expect(JSON.stringify(body)).not.toContain(projectDir);
    expect(seen[0]).toBeInstanceOf(ConfigurationError);
  });

  it('the old projectDir option is refused with a pointer to cellgate/node', () => {
    expect(() => handlerWith({ projectDir: root } as never)).toThrow(ConfigurationError);
    expect(() => handlerWith({ projectDir: root } as never)).toThrow(/options\.projectDir: has moved.*nodeProjectFolder.*cellgate\/node/);
  });
});
