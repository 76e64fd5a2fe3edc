/**
 * `cellgate/node`: the parts of cellgate that need a file system or a Node database package
 * (Node, Bun, Deno), kept out of the runtime-neutral root entry: the project folder of local mode
 * and the storage driver named by a URL (`DATABASE_URL`).
 */
export { nodeProjectFolder } from './project-folder.ts';
export { readMigrationFiles, withMigrationFiles, writeNextMigrationFile, type MigrationFile } from './migration-files.ts';
export { parseStorageUrl, storageFromUrl, type StorageFromUrlOptions, type StorageUrl } from './storage-from-url.ts';
export type { ProjectFolder, ScaffoldWrite } from '../contract/catalog/project-folder.ts';
