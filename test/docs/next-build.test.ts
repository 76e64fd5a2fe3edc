/**
 * The README's Next route file builds and serves as a real Next app: `next build` of an empty app
 * holding the README's `cellgate.ts`, its entity and its route file succeeds with no JWT secret
 * in the environment (the route builds the handler on first request, not when `next build` loads
 * it), and `next start` with the secret set answers the contract API, a governed create and read
 * with a token, 401 without one, and HEAD. The packed package is installed as a user gets it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { realpathSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { signDevToken } from 'cellgate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, run } from '../packaging/pack.ts';
import { codeBlocks } from './markdown.ts';

const TENANT = '00000000-0000-4000-8000-000000000001';
const WORKSPACE = '00000000-0000-4000-8000-000000000002';
const SECRET = 'a-test-secret-of-at-least-32-bytes-long';

/** The README's files the route needs: `cellgate.ts`, the Quick start's entity, the route file. */
const README_FILES = ['cellgate.ts', 'task.entity.json', 'app/[...cellgate]/route.ts'];

/**
 * Test scaffolding a Next app has anyway. Turbopack compiles nothing outside its root, and the
 * app's packages are links into this repository's install, so the root is the folder that holds
 * both the app and the real folder of `next`.
 */
const NEXT_CONFIG = (turbopackRoot: string) => `export default {
  turbopack: { root: ${JSON.stringify(turbopackRoot)} },
  outputFileTracingRoot: ${JSON.stringify(turbopackRoot)},
  typescript: { ignoreBuildErrors: true },
};
`;

const TSCONFIG = JSON.stringify({
  compilerOptions: {
    target: 'ES2022',
    lib: ['dom', 'es2022'],
    module: 'esnext',
    moduleResolution: 'bundler',
    strict: true,
    skipLibCheck: true,
    jsx: 'preserve',
    paths: { '@/*': ['./*'] },
  },
  include: ['**/*.ts'],
  exclude: ['node_modules'],
});

/** The folder that holds both `a` and `b`. */
function commonRoot(a: string, b: string): string {
  const left = a.split('/');
  const right = b.split('/');
  let shared = 0;
  while (shared < left.length && left[shared] === right[shared]) shared += 1;
  return left.slice(0, shared).join('/') || '/';
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The environment of the app's commands: no JWT secret unless given. */
function envWith(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...extra };
  if (extra.CELLGATE_JWT_SECRET === undefined) delete env.CELLGATE_JWT_SECRET;
  return env;
}

let app: string;
let built: { ok: boolean; output: string };
let server: ChildProcess | undefined;
let base: string;

beforeAll(async () => {
  const blocks = Object.fromEntries(codeBlocks('README.md').map((block) => [block.attrs.file, block.code]));
  const files: Record<string, string> = { 'tsconfig.json': TSCONFIG };
  for (const file of README_FILES) {
    expect(blocks[file], `README.md has a block file=${file}`).toBeDefined();
    files[file] = blocks[file]!;
  }
  app = await createApp({ type: 'module', link: ['next', 'react', 'react-dom', 'typescript', '@types/node', '@types/react'], files });
  writeFileSync(join(app, 'next.config.mjs'), NEXT_CONFIG(commonRoot(realpathSync(app), realpathSync(join(app, 'node_modules/next')))));
  const next = join(app, 'node_modules/next/dist/bin/next');
  built = await run(process.execPath, [next, 'build'], { cwd: app, env: envWith({}), timeout: 540_000, maxBuffer: 16 << 20 }).then(
    ({ stdout, stderr }) => ({ ok: true, output: stdout + stderr }),
    (error: { stdout?: string; stderr?: string; message: string }) => ({ ok: false, output: `${error.message}\n${error.stdout ?? ''}${error.stderr ?? ''}` }),
  );
  if (!built.ok) return;
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  server = spawn(process.execPath, [next, 'start', '-p', String(port), '-H', '127.0.0.1'], {
    cwd: app,
    env: envWith({ CELLGATE_JWT_SECRET: SECRET }),
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 300_000,
  });
  let output = '';
  server.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  server.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  for (let attempt = 0; ; attempt++) {
    if (server.exitCode !== null || attempt === 300) throw new Error(`next start did not answer: ${output}`);
    try {
      await fetch(`${base}/health`);
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}, 600_000);

afterAll(() => {
  server?.kill();
});

describe("the README's Next route file", () => {
  it('builds with `next build` while the JWT secret is unset', () => {
    expect(built.ok, built.output.slice(-4000)).toBe(true);
  });

  it('serves cellgate under `next start` once the secret is set at run time', async () => {
    expect(built.ok, 'next build failed (see the test above)').toBe(true);
    expect(await (await fetch(`${base}/health`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${base}/api/primitives`)).json()).toHaveLength(30);
    const head = await fetch(`${base}/health`, { method: 'HEAD' });
    expect([head.status, await head.text()]).toEqual([200, '']);
    const tasks = `${base}/v1/workspaces/${WORKSPACE}/tasks`;
    const authorization = `Bearer ${await signDevToken({ secret: SECRET, tenantId: TENANT, workspaces: { [WORKSPACE]: ['editor'] } })}`;
    const created = await fetch(tasks, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: '{"title":"Write tests"}' });
    expect(created.status, await created.clone().text()).toBe(201);
    const { data } = (await created.json()) as { data: { id: string } };
    const read = await fetch(`${tasks}/${data.id}`, { headers: { authorization } });
    expect(read.status).toBe(200);
    expect((await fetch(tasks)).status).toBe(401);
  });
});
