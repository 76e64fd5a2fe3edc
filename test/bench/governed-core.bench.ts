/**
 * Governed core on the memory driver: PATCH and rollback cost with a history of 10 versus 10,000
 * versions of the same record. The per-version state store is keyed by (resource, id, version), so
 * neither operation should grow with history length: compare the hz of each pair in one run.
 */
import { bench, describe } from 'vitest';
import { createGovernedService, type GovernedService, memoryStorage } from 'cellgate';
import { Customer, customerInput, wsCtx } from '../unit/governed/core-fixtures.ts';

interface Subject {
  service: GovernedService;
  id: string;
  version: number;
}

async function subject(history: number): Promise<Subject> {
  const storage = memoryStorage();
  const service = createGovernedService({ entity: Customer, storage, redaction: { hashSecret: 'bench' } });
  await storage.migrate([service.model]);
  const created = await service.create(wsCtx(), { ...customerInput, notes: 'n' });
  let version = 1;
  while (version < history) {
    await service.update(wsCtx(), created.data.id, { expectedVersion: version, name: `N${version}`, notes: `note ${version}` });
    version += 1;
  }
  return { service, id: created.data.id, version };
}

const short = await subject(10);
const long = await subject(10_000);

async function patch(s: Subject): Promise<void> {
  const view = await s.service.update(wsCtx(), s.id, { expectedVersion: s.version, name: `P${s.version}` });
  s.version = view.meta.version;
}

async function rollback(s: Subject): Promise<void> {
  const view = await s.service.rollback(wsCtx(), s.id, { targetVersion: 2, expectedVersion: s.version });
  s.version = view.meta.version;
}

describe('PATCH by history length', () => {
  bench('PATCH, history 10', () => patch(short));
  bench('PATCH, history 10,000', () => patch(long));
});

describe('rollback by history length', () => {
  bench('rollback, history 10', () => rollback(short));
  bench('rollback, history 10,000', () => rollback(long));
});
