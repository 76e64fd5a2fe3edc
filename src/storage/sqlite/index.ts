/**
 * `cellgate/storage/sqlite`: governed resources stored in SQLite through better-sqlite3 (an
 * optional peer dependency, loaded only here). Never imported by the root entry.
 */
export { sqliteStorage, type SqliteClient, type SqliteStorageOptions } from './sqlite-storage.ts';
