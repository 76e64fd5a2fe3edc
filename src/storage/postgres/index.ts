/**
 * `cellgate/storage/postgres`: governed resources stored in PostgreSQL through node-postgres (an
 * optional peer dependency, loaded only here). Never imported by the root entry.
 */
export { postgresStorage, type PostgresPoolLike, type PostgresStorageOptions, type ReplicaOptions } from './postgres-storage.ts';
export type { ConsistencyRouting } from '../types.ts';
