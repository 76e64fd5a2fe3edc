/**
 * A list reader's memory on SQLite and PostgreSQL (`DATABASE_URL`'s server, else a throwaway
 * cluster), printed as `[list bench]` lines: RECORDS (default 100) records of about 0.9 MB, then,
 * in a fresh server process (list-memory-server.ts), three concurrent `GET …?pageSize=100` reads
 * of the whole collection; the server's peak RSS over its RSS before. Measured twice per database
 * in the same run: pages read whole and answered in one piece (`LIST_READ=whole`, the path before
 * docs/decisions/B25.md), then read in batches of at most LIST_BATCH_MAX_LENGTH and streamed.
 * Every answer is checked to hold all records.
 *
 * Usage: node --import tsx test/bench/list-memory.ts
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGovernedService, type Actor } from 'cellgate';
import { storageFromUrl } from 'cellgate/node';
import { ORDER_DOCUMENT } from '../events/support.ts';
import { ids, mint } from '../governed/support.ts';
import { startTestPostgres } from '../support/postgres.ts';
import { startServer } from './load-support.ts';

const RECORDS = Number(process.env.RECORDS ?? 100);
const READERS = 3;
const report = (line: string) => console.log(`[list bench] ${line}`);

const dir = mkdtempSync(join(tmpdir(), 'cellgate-list-memory-'));
const postgres = await startTestPostgres();
const databases: Array<{ name: string; url: string }> = [{ name: 'SQLite', url: `sqlite:${join(dir, 'lists.db')}` }];
if (postgres.ok) databases.push({ name: 'PostgreSQL', url: postgres.db.url });
else report(`PostgreSQL skipped: ${postgres.skip}`);

const children: ChildProcess[] = [];
try {
  for (const database of databases) {
    // The records, written in code (one tenant, one workspace), before any server reads them.
    const storage = await storageFromUrl(database.url);
    const service = createGovernedService({ entity: ORDER_DOCUMENT, storage });
    await storage.migrate([service.model]);
    const tenantId = crypto.randomUUID();
    const actor: Actor = { id: 'writer', type: 'user', tenantId, roles: ['admin'], workspaces: {}, permissions: [] };
    for (let index = 0; index < RECORDS; index += 1)
      await service.create({ actor, scope: { workspaceId: ids.ws } }, { title: String(index % 10).repeat(900_000), amount: index });
    await storage.close();
    const token = await mint({ sub: crypto.randomUUID(), tenant: tenantId, roles: ['admin'] });

    const figures: string[] = [];
    for (const mode of ['whole', 'batched'] as const) {
      const { child, url } = await startServer(['test/bench/list-memory-server.ts'], { DATABASE_URL: database.url, LIST_READ: mode });
      children.push(child);
      const stats = async () => (await (await fetch(`${url}/__bench`)).json()) as { rssMiB: number; peakMiB: number };
      const read = async (pageSize: number) => {
        const answer = await fetch(`${url}/v1/workspaces/${ids.ws}/orders?pageSize=${pageSize}`, { headers: { authorization: `Bearer ${token}` } });
        const count = ((await answer.json()) as { data: unknown[] }).data.length;
        if (count !== Math.min(pageSize, RECORDS)) throw new Error(`${mode} read served ${count} records`);
        return count;
      };
      await read(1);
      const before = await stats();
      await Promise.all(Array.from({ length: READERS }, () => read(100)));
      const after = await stats();
      child.kill();
      const rise = after.peakMiB - before.rssMiB;
      figures.push(
        `${mode === 'whole' ? 'one piece' : 'batched, streamed'}: RSS ${before.rssMiB.toFixed(0)} MiB before, peak ${after.peakMiB.toFixed(0)} MiB (+${rise.toFixed(0)} MiB, ${(rise / READERS).toFixed(0)} MiB per reader)`,
      );
    }
    report(`${database.name}: ${RECORDS} records of ~0.9 MB, ${READERS} concurrent pageSize=100 reads; ${figures.join('; ')}`);
  }
} finally {
  for (const child of children) child.kill();
  if (postgres.ok) await postgres.db.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
