/**
 * The zod schemas of the Cell manifest contract (`platform/v1alpha1`). One schema per shape; the
 * same objects back validation, TypeScript types, JSON Schema, OpenAPI and MCP schemas.
 */
export { CONTRACT_VERSION, SNAKE_CASE } from './common.ts';
export * from './manifest.ts';
export * from './manifest-parts.ts';
export * from './app-shell.ts';
export * from './navigation.ts';
export * from './page.ts';
export * from './entity.ts';
export * from './field.ts';
export * from './relation.ts';
export * from './computed.ts';
export * from './entity-blocks.ts';
export * from './capability.ts';
export * from '../../validation/results.ts';
