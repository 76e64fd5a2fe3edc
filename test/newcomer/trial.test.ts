/**
 * The newcomer trial, from the packed tarball: the README's Quick start run as pasted (files
 * written from its code blocks, its shell block run with bash and curl), `cellgate serve` on the
 * user's own entity, the CLI's storage hints, and each framework mounting cellgate next to the
 * host's own routes and middleware (a body-reading middleware, a root route, a `/*` fallback, an
 * auth middleware). Frameworks are linked from this repository's install (offline, fast).
 */
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, packOnce, root, run, startProcess } from '../packaging/pack.ts';

beforeAll(() => packOnce(), 300_000);

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const quickStart = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('\n## ', readme.indexOf('## Quick start') + 1));

/** The fenced blocks of a Markdown text: info string and body. */
function blocks(markdown: string): Array<{ info: string; body: string }> {
  return [...markdown.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].map((match) => ({ info: match[1]!.trim(), body: match[2]! }));
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Links the `cellgate` bin as npm would, so `npx cellgate` runs the installed one offline. */
function linkBin(app: string): void {
  mkdirSync(join(app, 'node_modules/.bin'), { recursive: true });
  symlinkSync('../cellgate/dist/cli.js', join(app, 'node_modules/.bin/cellgate'));
}

const TASK = JSON.stringify({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Task',
  key: 'work.task',
  version: '1.0.0',
  description: 'A to-do item.',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['viewer', 'editor', 'admin'], edit: ['editor', 'admin'], admin: ['admin'] },
  fields: { title: { type: 'string' }, done: { type: 'boolean', optional: true } },
});

describe('README Quick start, as pasted', () => {
  it('creates and lists a task of the user’s own entity with the curl lines', async () => {
    const files = Object.fromEntries(
      blocks(quickStart)
        .filter((block) => /file=/.test(block.info))
        .map((block) => [/file=(\S+)/.exec(block.info)![1]!, block.body]),
    );
    expect(Object.keys(files).sort()).toEqual(['server.js', 'task.entity.json']);
    // Port 3000 of the sample may be taken on a shared machine: the same text with a free port.
    const port = await freePort();
    for (const file of Object.keys(files)) files[file] = files[file]!.replaceAll('3000', String(port));
    const app = await createApp({ type: 'module', link: ['express'], files });
    linkBin(app);
    const shell = blocks(quickStart)
      .filter((block) => block.info === 'sh')
      .at(-1)!
      .body.replaceAll('3000', String(port));
    const script = `set -e\n${shell}\nkill $!\n`;
    const { stdout } = await run('bash', ['-c', script], { cwd: app, timeout: 60_000, env: { ...process.env, PORT: String(port) } });
    const lines = stdout.split('\n').filter((line) => line.startsWith('{'));
    expect(JSON.parse(lines[0]!)).toMatchObject({ data: { title: 'Write tests', version: 1 } });
    expect(JSON.parse(lines[1]!)).toMatchObject({ data: [{ title: 'Write tests' }] });
    expect(JSON.parse(lines[2]!)).toMatchObject({ error: 'VALIDATION_ERROR' });
  }, 120_000);
});

describe('the cellgate command from the tarball', () => {
  it('serve --entity serves the user’s entity (YAML or JSON)', async () => {
    const app = await createApp({ type: 'module', files: { 'task.entity.json': TASK } });
    const { url, stop } = await startProcess(
      ['node_modules/cellgate/dist/cli.js', 'serve', '--entity', 'task.entity.json', '--database-url', 'memory:', '--port', '0'],
      {
        cwd: app,
        env: { ...process.env, CELLGATE_JWT_SECRET: 'x'.repeat(40) },
        pattern: /listening on (http:\/\/\S+)/,
      },
    );
    try {
      const { stdout: token } = await run(
        process.execPath,
        [
          'node_modules/cellgate/dist/cli.js',
          'token',
          '--tenant',
          '00000000-0000-4000-8000-000000000001',
          '--workspace',
          '00000000-0000-4000-8000-000000000002=editor',
        ],
        {
          cwd: app,
          env: { ...process.env, CELLGATE_JWT_SECRET: 'x'.repeat(40) },
        },
      );
      const tasks = `${url}/v1/workspaces/00000000-0000-4000-8000-000000000002/tasks`;
      const created = await fetch(tasks, {
        method: 'POST',
        headers: { authorization: `Bearer ${token.trim()}`, 'content-type': 'application/json' },
        body: '{"title":"t"}',
      });
      expect(created.status).toBe(201);
      expect((await fetch(`${url}/v1/workspaces/00000000-0000-4000-8000-000000000002/customers`)).status).toBe(404);
    } finally {
      stop();
    }
  }, 60_000);

  // Without the suite's DATABASE_URL: the commands' default (a SQLite file) is what a newcomer gets.
  const { DATABASE_URL: _suiteDatabase, ...env } = process.env;
  const cli = (app: string, args: string[]) =>
    run(process.execPath, ['node_modules/cellgate/dist/cli.js', ...args], { cwd: app, timeout: 60_000, env }).then(
      (ok) => ({ code: 0, stderr: ok.stderr }),
      (error: { code: number; stderr: string }) => error,
    );

  it('without better-sqlite3, serve and migrate say how to install it or what else to run on', async () => {
    const app = await createApp({ type: 'module' });
    for (const command of ['serve', 'migrate']) {
      const result = await cli(app, [command, '--port', '0'].slice(0, command === 'serve' ? 3 : 1));
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/npm install better-sqlite3/);
      expect(result.stderr).toMatch(/memory:/);
      expect(result.stderr).not.toMatch(/Cannot find package/);
    }
  }, 60_000);

  it('without pg, a PostgreSQL URL says how to install it', async () => {
    const app = await createApp({ type: 'module' });
    const result = await cli(app, ['migrate', '--database-url', 'postgres://app@127.0.0.1:5432/app']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/npm install pg/);
  }, 60_000);

  it('migrate against an unreachable PostgreSQL names host, port and cause', async () => {
    const app = await createApp({ type: 'module', link: ['pg'] });
    const port = await freePort(); // nothing listens there
    const result = await cli(app, ['migrate', '--database-url', `postgres://app@127.0.0.1:${port}/app`]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`127\\.0\\.0\\.1:${port}.*ECONNREFUSED`));
  }, 60_000);
});

/** One host app per framework: the host's own middleware and routes around cellgate. */
const HOSTS: Record<string, { link: string[]; code: string }> = {
  express: {
    link: ['express'],
    code: `
import express from 'express';
import { toExpress } from 'cellgate/adapters/express';
const app = express();
app.use((req, res, next) => (req.headers['x-block'] ? res.status(401).json({ host: 'auth' }) : next())); // auth middleware
app.use(express.json()); // body-reading middleware in front (the order the README warns about)
app.get('/', (_req, res) => res.json({ host: 'root' }));
app.use(toExpress(cellgate));
app.use((_req, res) => res.status(404).json({ host: 'fallback' }));
const server = app.listen(0, '127.0.0.1', () => console.log('url=http://127.0.0.1:' + server.address().port));
`,
  },
  express4: { link: ['express4'], code: '' }, // filled from the express host below
  fastify: {
    link: ['fastify'],
    code: `
import Fastify from 'fastify';
import { cellgatePlugin } from 'cellgate/adapters/fastify';
const app = Fastify();
app.addHook('onRequest', async (request, reply) => { if (request.headers['x-block']) return reply.code(401).send({ host: 'auth' }); });
app.addHook('preValidation', async (request) => { void request.body; }); // reads the parsed body
app.get('/', async () => ({ host: 'root' }));
app.all('/*', async (_request, reply) => reply.code(404).send({ host: 'fallback' }));
await app.register(cellgatePlugin, { handler: cellgate });
console.log('url=' + await app.listen({ port: 0, host: '127.0.0.1' }));
`,
  },
  hono: {
    link: ['hono', '@hono/node-server'],
    code: `
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { toHono } from 'cellgate/adapters/hono';
const app = new Hono();
app.use('*', async (c, next) => (c.req.header('x-block') ? c.json({ host: 'auth' }, 401) : next()));
app.use('*', async (c, next) => { if (c.req.method === 'POST') await c.req.json().catch(() => undefined); await next(); });
app.get('/', (c) => c.json({ host: 'root' }));
app.use('*', toHono(cellgate));
app.all('/*', (c) => c.json({ host: 'fallback' }, 404));
serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => console.log('url=http://127.0.0.1:' + info.port));
`,
  },
};

HOSTS.express4!.code = HOSTS.express!.code.replace("from 'express'", "from 'express4'");

describe.each(Object.entries(HOSTS))('%s host app with cellgate from the tarball', (_name, host) => {
  it('routes the host’s own paths and cellgate’s, with the host middleware in front', async () => {
    const prelude = `
import { composeHandlers, createContractHandler, createGovernedApi, memoryStorage } from 'cellgate';
const governed = createGovernedApi({ storage: memoryStorage(), auth: { secret: 'x'.repeat(40) }, resources: [${TASK}] });
await governed.migrate();
const cellgate = composeHandlers(createContractHandler(), governed);
`;
    const app = await createApp({ type: 'module', link: host.link, files: { 'main.js': prelude + host.code } });
    const { url, stop } = await startProcess(['main.js'], { cwd: app, pattern: /url=(\S+)/ });
    try {
      const json = (path: string, init?: RequestInit) => fetch(url + path, init).then(async (r) => [r.status, await r.json()]);
      expect(await json('/')).toEqual([200, { host: 'root' }]);
      expect(await json('/elsewhere')).toEqual([404, { host: 'fallback' }]);
      expect(await json('/health')).toEqual([200, { status: 'ok' }]);
      expect(await json('/health', { headers: { 'x-block': '1' } })).toEqual([401, { host: 'auth' }]);
      const post = (body: string) => json('/api/validate/entity', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(await post(JSON.stringify({ entity: { key: 'a', name: 'A', pluralName: 'As', fields: [{ key: 'n', type: 'string', name: 'N' }] } }))).toEqual([
        200,
        expect.objectContaining({ valid: true }),
      ]);
      const [status, bad] = (await post('{"entity": ')) as [number, { error: string }];
      expect([status, bad.error]).toEqual([400, 'BAD_REQUEST']);
      expect(await json('/v1/workspaces/00000000-0000-4000-8000-000000000002/tasks')).toEqual([401, expect.objectContaining({ error: 'UNAUTHENTICATED' })]);
    } finally {
      stop();
    }
  }, 90_000);
});

/** The README block written to `file` (its info string names it: ```` ```ts file=<file> ````). */
function readmeBlock(file: string): string {
  const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`^\`\`\`ts file=${escaped}[^\\n]*\\n([\\s\\S]*?)^\`\`\`$`, 'm').exec(readme);
  if (match === null) throw new Error(`README has no block for ${file}`);
  return match[1]!;
}

/**
 * A fresh Next 16 App Router app, as `create-next-app` lays it out (TypeScript, `@/` alias, root
 * layout and page, a `proxy.ts` middleware), with the catch-all route of the README. Built with
 * `next build` (which also type-checks the app under `strict`) and served by `next start`.
 */
const NEXT_APP: Record<string, string> = {
  'tsconfig.json': JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      lib: ['dom', 'dom.iterable', 'esnext'],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      module: 'esnext',
      moduleResolution: 'bundler',
      resolveJsonModule: true,
      isolatedModules: true,
      jsx: 'react-jsx',
      esModuleInterop: true,
      allowJs: true,
      plugins: [{ name: 'next' }],
      paths: { '@/*': ['./*'] },
    },
    include: ['next-env.d.ts', '**/*.ts', '**/*.tsx', '.next/types/**/*.ts'],
    exclude: ['node_modules'],
  }),
  // Only because this trial links next and react from the repository's install (outside the app
  // folder): Turbopack compiles nothing outside its root. An app with its own install needs no config.
  'next.config.mjs': `export default { turbopack: { root: '/' }, outputFileTracingRoot: '/' };\n`,
  'app/layout.tsx': `export default function RootLayout({ children }: { children: React.ReactNode }) {\n  return (<html lang="en"><body>{children}</body></html>);\n}\n`,
  'app/page.tsx': `export default function Home() {\n  return <main>the host's own root page</main>;\n}\n`,
  'app/hello/route.ts': `export const dynamic = 'force-dynamic';\nexport function GET(): Response {\n  return Response.json({ host: 'hello' });\n}\n`,
  // Next 16's middleware file: an auth check, and a body read in front of cellgate's POSTs.
  'proxy.ts': `import { NextResponse, type NextRequest } from 'next/server';

export async function proxy(request: NextRequest) {
  if (request.headers.get('x-block')) return NextResponse.json({ host: 'auth' }, { status: 401 });
  if (request.method === 'POST') await request.json().catch(() => undefined);
  return NextResponse.next();
}
`,
  // The README's shared module and the Quick start's entity, at the app root as the README has them.
  'task.entity.json': TASK,
  'cellgate.ts': readmeBlock('cellgate.ts'),
  // The route file of the README, as written there.
  'app/[...cellgate]/route.ts': readmeBlock('app/[...cellgate]/route.ts'),
};

describe('next host app with cellgate from the tarball', () => {
  it('builds, and routes the host’s own page, route and proxy next to cellgate’s catch-all', async () => {
    const started = Date.now();
    const app = await createApp({ type: 'module', link: ['next', 'react', 'react-dom', 'typescript', '@types/react', '@types/node'], files: NEXT_APP });
    const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', CELLGATE_JWT_SECRET: 'x'.repeat(40) };
    const next = join(app, 'node_modules/next/dist/bin/next');
    await run(process.execPath, [next, 'build'], { cwd: app, env, timeout: 300_000 });
    const built = Date.now();
    const port = await freePort();
    const { url, stop } = await startProcess([next, 'start', '-H', '127.0.0.1', '-p', String(port)], { cwd: app, env, pattern: /Local:\s+(http:\/\/\S+)/ });
    try {
      const json = (path: string, init?: RequestInit) => fetch(url + path, init).then(async (r) => [r.status, await r.json()]);
      const page = await fetch(`${url}/`);
      expect([page.status, await page.text()]).toEqual([200, expect.stringContaining('the host&#x27;s own root page')]);
      expect(await json('/hello')).toEqual([200, { host: 'hello' }]);
      // The catch-all owns every other path: no host fallback behind it, the core's 404 envelope.
      expect(await json('/elsewhere')).toEqual([404, expect.objectContaining({ error: 'NOT_FOUND' })]);
      expect(await json('/health')).toEqual([200, { status: 'ok' }]);
      expect(await json('/health', { headers: { 'x-block': '1' } })).toEqual([401, { host: 'auth' }]);
      const post = (path: string, body: string, headers: Record<string, string> = {}) =>
        json(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
      expect(
        await post(
          '/api/validate/entity',
          JSON.stringify({ entity: { key: 'a', name: 'A', pluralName: 'As', fields: [{ key: 'n', type: 'string', name: 'N' }] } }),
        ),
      ).toEqual([200, expect.objectContaining({ valid: true })]);
      const [status, bad] = (await post('/api/validate/entity', '{"entity": ')) as [number, { error: string }];
      expect([status, bad.error]).toEqual([400, 'BAD_REQUEST']);
      const tasks = '/v1/workspaces/00000000-0000-4000-8000-000000000002/tasks';
      expect(await json(tasks)).toEqual([401, expect.objectContaining({ error: 'UNAUTHENTICATED' })]);
      const { stdout: token } = await run(
        process.execPath,
        [
          'node_modules/cellgate/dist/cli.js',
          'token',
          '--tenant',
          '00000000-0000-4000-8000-000000000001',
          '--workspace',
          '00000000-0000-4000-8000-000000000002=editor',
        ],
        { cwd: app, env },
      );
      // The proxy read this body first; the route still gets all of it.
      expect(await post(tasks, '{"title":"from next"}', { authorization: `Bearer ${token.trim()}` })).toEqual([
        201,
        expect.objectContaining({ data: expect.objectContaining({ title: 'from next', version: 1 }) }),
      ]);
    } finally {
      stop();
    }
    console.log(`next trial: build ${Math.round((built - started) / 1000)} s, checks ${Math.round((Date.now() - built) / 1000)} s`);
  }, 360_000);
});
