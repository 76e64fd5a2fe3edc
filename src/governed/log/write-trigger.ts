/**
 * The storage the resources of an API with a verifiable log write through: the same driver, whose
 * transactions note the tenants they append audit records for and, once committed, tell the
 * checkpoints (which sign one when it is due). A rolled-back transaction tells nothing. No write
 * path changes: the leaf itself is appended by the driver in the transaction (B35).
 */
import type { MaintenanceSession, StorageDriver, StorageSession } from '../../storage/types.ts';
import type { Checkpoints } from './checkpoints.ts';

/** `storage`, with commits of audited writes reported to `checkpoints.afterWrite`. */
export function withCheckpointTrigger(storage: StorageDriver, checkpoints: Checkpoints): StorageDriver {
  const noting = <S extends StorageSession>(session: S, tenants: Set<string>): S => {
    const noted = Object.create(session) as S;
    noted.appendAudit = (record) => {
      tenants.add(record.tenantId);
      return session.appendAudit(record);
    };
    return noted;
  };
  const report = (tenants: Set<string>) => {
    for (const tenantId of tenants) checkpoints.afterWrite(tenantId);
  };
  // Prototype delegation keeps every other member (getters, capabilities, events, log) as it is.
  const wrapped = Object.create(storage) as StorageDriver;
  return Object.assign(wrapped, {
    async transaction<T>(fn: (session: StorageSession) => Promise<T>): Promise<T> {
      const tenants = new Set<string>();
      const result = await storage.transaction((session) => fn(noting(session, tenants)));
      report(tenants);
      return result;
    },
    async maintenance<T>(reason: MaintenanceSession['reason'], fn: (session: MaintenanceSession) => Promise<T>): Promise<T> {
      const tenants = new Set<string>();
      const result = await storage.maintenance(reason, (session) => fn(noting(session, tenants)));
      report(tenants);
      return result;
    },
  });
}
