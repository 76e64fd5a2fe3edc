/**
 * UI primitive catalog (docs/decisions/A08.md–docs/decisions/A10.md): the 30 core primitives with props schemas and examples,
 * custom primitives from options or a project folder, and the scaffold of new ones.
 */
export { createPrimitiveRegistry } from './registry.ts';
export type { PrimitiveListFilter, PrimitiveRegistry, PrimitiveRegistryOptions } from './registry.ts';
export type { ProjectFolder, ScaffoldWrite } from './project-folder.ts';
export * from './schemas.ts';
