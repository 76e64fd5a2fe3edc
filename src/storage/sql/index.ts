/**
 * The shared SQL implementation of the storage seam (internal: users reach it through
 * `cellgate/storage/sqlite` and `cellgate/storage/postgres`).
 */
export { retryWhileBusy } from './busy-retry.ts';
export { createSqlStorage, type SqlStorageOptions, type VerifiableLogSwitch } from './sql-storage.ts';
export { fieldKind, type ColumnKind, type ErrorClass, type SqlDb, type SqlDialect, type SqlSchema, type SqlTx } from './sql-dialect.ts';
export { AUDIT_TABLE, IDEMPOTENCY_TABLE, MIGRATIONS_TABLE, VERSION_TABLE } from './columns.ts';
