/**
 * The smoke checks of a running reference host (each example host's `smoke.ts` runs them against
 * itself): a wrong answer throws with what was wrong. The MCP check uses the official client,
 * `@modelcontextprotocol/sdk`, an optional peer dependency the smoke needs installed.
 */
import { signDevToken } from 'cellgate';
import { connectMcpClient } from '../testing/mcp-client.ts';
import { DEMO_IDS } from './demo.ts';

const DEMO_TENANT = DEMO_IDS.tenant;
const DEMO_WORKSPACE = DEMO_IDS.workspace;

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`smoke: ${message}`);
}

async function json(response: Response, what: string, status = 200): Promise<unknown> {
  const text = await response.text();
  check(response.status === status, `${what}: expected ${status}, got ${response.status} ${text.slice(0, 200)}`);
  return JSON.parse(text) as unknown;
}

/**
 * Runs the checks against `baseUrl`; `secret` (the host's CELLGATE_JWT_SECRET) enables the
 * governed create. Resolves with one line per passed check.
 */
export async function runSmoke(baseUrl: string, secret?: string): Promise<string[]> {
  const passed: string[] = [];
  const health = (await json(await fetch(`${baseUrl}/health`), 'GET /health')) as { status?: string };
  check(health.status === 'ok', `GET /health answered ${JSON.stringify(health)}`);
  passed.push('health ok');

  // Security headers: nosniff on answers, no X-Powered-By, and the host's 404 is the JSON envelope.
  const unmatched = await fetch(`${baseUrl}/no-such-path`);
  for (const response of [await fetch(`${baseUrl}/health`), unmatched]) {
    check(response.headers.get('x-powered-by') === null, `${response.url} sends X-Powered-By: ${response.headers.get('x-powered-by')}`);
    check(response.headers.get('x-content-type-options') === 'nosniff', `${response.url} lacks X-Content-Type-Options: nosniff`);
  }
  const missing = (await json(unmatched, 'GET /no-such-path', 404)) as { error?: string; message?: string };
  check(
    missing.error === 'NOT_FOUND' && typeof missing.message === 'string',
    `GET /no-such-path: expected the NOT_FOUND envelope, got ${JSON.stringify(missing).slice(0, 200)}`,
  );
  passed.push('security headers and 404 envelope ok');

  const primitives = (await json(await fetch(`${baseUrl}/api/primitives`), 'GET /api/primitives')) as unknown[];
  check(
    Array.isArray(primitives) && primitives.length === 30,
    `expected 30 primitives, got ${Array.isArray(primitives) ? primitives.length : typeof primitives}`,
  );
  passed.push('primitives 30');

  const manifest = await json(await fetch(`${baseUrl}/api/examples/crm-manifest`), 'GET /api/examples/crm-manifest');
  const validation = (await json(
    await fetch(`${baseUrl}/api/validate/manifest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ manifest }) }),
    'POST /api/validate/manifest',
  )) as { valid?: boolean };
  check(validation.valid === true, `the CRM example should validate, got ${JSON.stringify(validation).slice(0, 200)}`);
  passed.push('validate example ok');

  const client = await connectMcpClient(new URL(`${baseUrl}/mcp`), 'cellgate-smoke', 'runSmoke');
  try {
    const { tools } = await client.listTools();
    check(tools.length === 19, `MCP tools/list: expected 19 tools, got ${tools.length}`);
  } finally {
    await client.close();
  }
  passed.push('mcp tools/list 19');

  if (secret) {
    const token = await signDevToken({ secret, tenantId: DEMO_TENANT, roles: ['admin'], workspaces: { [DEMO_WORKSPACE]: ['admin'] } });
    const created = (await json(
      await fetch(`${baseUrl}/v1/workspaces/${DEMO_WORKSPACE}/customers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Smoke Test Ltd', email: 'smoke@example.com', status: 'lead' }),
      }),
      'POST customers',
      201,
    )) as { data?: { id?: string } };
    check(typeof created.data?.id === 'string', 'governed create answered no id');
    passed.push('governed create 201');
  }
  return passed;
}

/**
 * CLI body of each host's `smoke.ts`: `tsx smoke.ts <base URL>`; resolves 1 on a wrong answer.
 *
 * @example
 * process.exitCode = await smokeMain();
 */
export async function smokeMain(argv: string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const baseUrl = (argv[0] ?? env.SMOKE_URL ?? `http://${env.HOST ?? '127.0.0.1'}:${env.PORT ?? '3000'}`).replace(/\/$/, '');
  try {
    for (const line of await runSmoke(baseUrl, env.CELLGATE_JWT_SECRET)) console.log(`ok  ${line}`);
    return 0;
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 1;
  }
}
