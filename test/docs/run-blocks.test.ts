/**
 * The code blocks marked `run` are run, from an empty app with the packed package installed:
 *
 * - the README's mounting samples (one per framework, each a complete server importing the
 *   `cellgate.ts` block, which reads the Quick start's `task.entity.json`) are started as written,
 *   on a free port, and must answer: the contract API, a governed create and list with a token,
 *   401 without one, and the host's own `GET /` where the sample has one. The Next route file is
 *   served by a small bridge that calls its exported method handlers as Next would;
 * - a guide's `run` block is a program that throws when what it shows does not hold: it must exit 0.
 *
 * The Quick start's own blocks are run as pasted, curl lines included, by test/newcomer/trial.test.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, packOnce, run } from '../packaging/pack.ts';
import { type CodeBlock, codeBlocks, markdownFiles, where } from './markdown.ts';

beforeAll(() => packOnce(), 300_000);

const TENANT = '00000000-0000-4000-8000-000000000001';
const WORKSPACE = '00000000-0000-4000-8000-000000000002';
const SECRET = 'a-test-secret-of-at-least-32-bytes-long';
const LINKS = ['express', 'fastify', 'hono', '@hono/node-server', 'tsx'];

const readmeFiles = codeBlocks('README.md').filter((block) => block.attrs.file);
const readmeRuns = readmeFiles.filter((block) => 'run' in block.attrs);
const guideRuns = markdownFiles()
  .filter((doc) => doc !== 'README.md')
  .flatMap(codeBlocks)
  .filter((block) => 'run' in block.attrs);

/** Stands in for Next: calls the route file's exported handler for the request's method. */
const NEXT_BRIDGE = `
import { createServer } from 'node:http';
import * as route from './app/[...cellgate]/route.ts';
const handlers = route as unknown as Record<string, (request: Request) => Promise<Response>>;
createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  const response = await handlers[req.method!]!(new Request('http://' + req.headers.host + req.url, { method: req.method, headers, body }));
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}).listen(Number(process.env.PORT), '127.0.0.1');
`;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Starts `node --import tsx <file>` (stopped after 90 s at the latest) and resolves once `base` answers. */
async function start(app: string, file: string, base: string, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: app,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 90_000,
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  for (let attempt = 0; attempt < 150; attempt++) {
    if (child.exitCode !== null) throw new Error(`${file} exited with ${child.exitCode}: ${output}`);
    try {
      await fetch(`${base}/health`);
      return child;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  child.kill();
  throw new Error(`${file} did not answer on ${base}: ${output}`);
}

describe('README mounting samples, run from an empty app', () => {
  let app: string;
  let token: string;

  beforeAll(async () => {
    const files = Object.fromEntries(readmeFiles.map((block) => [block.attrs.file!, block.code]));
    files['next-bridge.ts'] = NEXT_BRIDGE;
    files['tsconfig.json'] = JSON.stringify({ compilerOptions: { paths: { '@/*': ['./*'] } } }); // a Next app's `@/*` alias
    app = await createApp({ type: 'module', link: LINKS, files });
    const signed = await run(process.execPath, ['node_modules/cellgate/dist/cli.js', 'token', '--tenant', TENANT, '--workspace', `${WORKSPACE}=editor`], {
      cwd: app,
      env: { ...process.env, CELLGATE_JWT_SECRET: SECRET },
    });
    token = signed.stdout.trim();
  }, 120_000);

  it('has one sample per framework, each a file of the app', () => {
    expect(readmeRuns.map((block) => block.attrs.file)).toEqual([
      'server-node.ts',
      'server-express.ts',
      'server-fastify.ts',
      'server-hono.ts',
      'app/[...cellgate]/route.ts',
    ]);
  });

  it.each(readmeRuns.map((block) => [block.attrs.file!, block] as const))(
    '%s answers',
    async (file, block: CodeBlock) => {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const isNextRoute = file.startsWith('app/');
      if (!isNextRoute) {
        expect(block.code, `${where(block)} listens on port 3000`).toContain('3000');
        writeFileSync(join(app, file), block.code.replaceAll('3000', String(port))); // 3000 may be taken on a shared machine
      }
      const child = await start(app, isNextRoute ? 'next-bridge.ts' : file, base, { CELLGATE_JWT_SECRET: SECRET, PORT: String(port) });
      try {
        expect(await (await fetch(`${base}/health`)).json()).toEqual({ status: 'ok' });
        expect(await (await fetch(`${base}/api/primitives`)).json()).toHaveLength(30);
        const tasks = `${base}/v1/workspaces/${WORKSPACE}/tasks`;
        const authorization = `Bearer ${token}`;
        const created = await fetch(tasks, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: '{"title":"Write tests"}' });
        expect(created.status).toBe(201);
        const listed = (await (await fetch(tasks, { headers: { authorization } })).json()) as { data: unknown[] };
        expect(listed.data).toEqual([expect.objectContaining({ title: 'Write tests', version: 1 })]);
        expect((await fetch(tasks)).status).toBe(401);
        if (block.code.includes("'my app'")) expect(await (await fetch(`${base}/`)).text()).toBe('my app');
      } finally {
        child.kill();
      }
    },
    60_000,
  );
});

/** Packages a block imports (bare specifiers other than cellgate and Node's own), linked from the repository's install. */
function importedPackages(code: string): string[] {
  const names = [...code.matchAll(/\bfrom '([^'.][^']*)'/g)].map((match) =>
    match[1]!
      .split('/')
      .slice(0, match[1]!.startsWith('@') ? 2 : 1)
      .join('/'),
  );
  return [...new Set(names)].filter((name) => name !== 'cellgate' && !name.startsWith('node:'));
}

describe('guide programs marked run, from an empty app', () => {
  it('finds them', () => {
    expect(guideRuns.length).toBeGreaterThanOrEqual(4);
  });

  it.each(guideRuns.map((block) => [where(block), block] as const))(
    '%s runs and exits 0',
    async (_where, block: CodeBlock) => {
      const app = await createApp({ type: 'module', link: ['tsx', ...importedPackages(block.code)], files: { 'sample.ts': `${block.code}\nexport {};\n` } });
      const result = await run(process.execPath, ['--import', 'tsx', 'sample.ts'], { cwd: app, timeout: 60_000 }).then(
        () => 'exit 0',
        (error: { code: number; stderr: string }) => `exit ${error.code}: ${error.stderr}`,
      );
      expect(result).toBe('exit 0');
    },
    60_000,
  );
});
