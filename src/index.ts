/**
 * cellgate: contract intelligence for Cell manifests and governed business entities, as Fetch
 * handlers. This root entry is runtime-neutral (no `node:*`, no database client in its import
 * graph); Node adapters and SQL drivers live in their own subpaths.
 */
export * from './errors.ts';
export * from './http/index.ts';
export type * from './storage/types.ts';
