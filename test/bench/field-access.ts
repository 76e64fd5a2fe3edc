/**
 * Field access on a GET (issue #30: it may add at most 5%). One API on a SQLite file serves two
 * entities that differ only in field permissions: `plain` (none) and `guarded` (two of its five
 * fields carry `permissions`, and the reader may view neither, so every answer is masked). The
 * same GET of one record is timed on each, the requests interleaved one by one, in-process through
 * the API's Fetch handler (auth, routing, storage read, view, JSON); the ratio of median latencies
 * guarded / plain is reported per round, and the median of the rounds. A reader who may view every guarded field is measured too.
 *
 * Usage: npx tsx test/bench/field-access.ts [rounds] [requests per side per round]
 * Exits 1 when the median ratio passes 1.05.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { createGovernedApi } from 'cellgate';
import { sqliteStorage } from 'cellgate/storage/sqlite';

const [roundsText = '7', blockText = '1000'] = process.argv.slice(2);
const rounds = Number(roundsText);
const block = Number(blockText);
const secret = 'field-access-bench-secret-0123456789abcdef';
const tenant = '11111111-1111-4111-8111-111111111111';
const ws = '33333333-3333-4333-8333-333333333333';

const entity = (name: string, key: string, guarded: boolean) => ({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name,
  key,
  version: '1.0.0',
  description: 'A person.',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['staff', 'hr'], edit: ['staff', 'hr'], admin: ['hr'] },
  fields: {
    name: { type: 'string' },
    email: { type: 'string' },
    title: { type: 'string' },
    salary: { type: 'number', optional: true, ...(guarded ? { permissions: { view: ['hr'], edit: ['hr'] } } : {}) },
    notes: { type: 'string', optional: true, ...(guarded ? { permissions: { view: ['hr'], edit: ['hr'] } } : {}) },
  },
});

const folder = mkdtempSync(join(tmpdir(), 'cellgate-field-bench-'));
const storage = sqliteStorage({ filename: join(folder, 'bench.db') });
const api = createGovernedApi({
  storage,
  auth: { secret },
  resources: { plain: entity('Plain', 'hr.plain', false) as never, guarded: entity('Guarded', 'hr.guarded', true) as never },
});
await api.migrate();
const mint = (role: string) =>
  new SignJWT({ tenant_id: tenant, workspaces: { [ws]: [role] } })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('77777777-7777-4777-8777-777777777777')
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(secret));
const tokens = { staff: await mint('staff'), hr: await mint('hr') };
const body = { name: 'Ada Lovelace', email: 'ada@example.com', title: 'Engineer', salary: 5200, notes: 'private notes' };

async function create(resource: string): Promise<string> {
  const response = await api(
    new Request(`http://bench.local/v1/workspaces/${ws}/${resource}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.hr}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
  return ((await response.json()) as { data: { id: string } }).data.id;
}
const ids = { plain: await create('plain'), guarded: await create('guarded') };

const url = (resource: 'plain' | 'guarded') => `http://bench.local/v1/workspaces/${ws}/${resource}/${ids[resource]}`;
/** Milliseconds of one GET. */
async function one(resource: 'plain' | 'guarded', token: string): Promise<number> {
  const started = performance.now();
  const response = await api(new Request(url(resource), { headers: { authorization: `Bearer ${token}` } }));
  await response.text();
  return performance.now() - started;
}

// Check what is measured: the staff reader gets the guarded fields masked, hr gets them.
const probe = await api(new Request(url('guarded'), { headers: { authorization: `Bearer ${tokens.staff}` } }));
const probed = (await probe.json()) as { meta: { hiddenFields?: string[] } };
if (probed.meta.hiddenFields?.join() !== 'salary,notes') throw new Error(`the staff reader should have salary and notes hidden: ${JSON.stringify(probed)}`);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
/**
 * One round: the three requests interleaved one by one (in rotating order), so a change in the
 * shared machine's load hits all three alike; each side's median latency.
 */
async function round(): Promise<{ plain: number; masked: number; visible: number }> {
  const times = { plain: [] as number[], masked: [] as number[], visible: [] as number[] };
  const steps: Array<[keyof typeof times, () => Promise<number>]> = [
    ['plain', () => one('plain', tokens.staff)],
    ['masked', () => one('guarded', tokens.staff)],
    ['visible', () => one('guarded', tokens.hr)],
  ];
  for (let i = 0; i < block; i++) {
    for (let k = 0; k < steps.length; k++) {
      const [side, run] = steps[(i + k) % steps.length]!;
      times[side].push(await run());
    }
  }
  return { plain: median(times.plain), masked: median(times.masked), visible: median(times.visible) };
}

await round(); // warm-up
const masked: number[] = [];
const visible: number[] = [];
console.log(`GET of one record, in-process through the Fetch handler, SQLite file; ${block} interleaved requests per side per round`);
for (let n = 1; n <= rounds; n++) {
  const r = await round();
  masked.push(r.masked / r.plain);
  visible.push(r.visible / r.plain);
  const us = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;
  console.log(
    `round ${n}: median plain ${us(r.plain)}, guarded (masked) ${us(r.masked)}, guarded (all visible) ${us(r.visible)}; ratios ${(r.masked / r.plain).toFixed(3)} / ${(r.visible / r.plain).toFixed(3)}`,
  );
}
const result = median(masked);
console.log(`median ratio with / without field permissions: masked ${result.toFixed(3)}, all visible ${median(visible).toFixed(3)} (limit 1.05)`);
await storage.close();
rmSync(folder, { recursive: true, force: true });
if (result > 1.05) process.exitCode = 1;
