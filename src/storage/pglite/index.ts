/**
 * `cellgate/storage/pglite`: governed resources stored in PGlite, PostgreSQL compiled to
 * WebAssembly and run in this process (`@electric-sql/pglite`, an optional peer dependency, loaded
 * only here). Never imported by the root entry.
 */
export { pgliteStorage, type PgliteLike, type PgliteQueryable, type PgliteResults, type PgliteStorageOptions } from './pglite-storage.ts';
