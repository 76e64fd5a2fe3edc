/**
 * Guidance for building manifests (docs/decisions/A14.md–docs/decisions/A16.md): recommend a structure from a goal, suggest
 * pages and relations for entities, explain validation errors.
 */
export { explainErrors } from './explain.ts';
export { suggestPages } from './pages.ts';
export { recommend } from './recommend.ts';
export { suggestRelations } from './relations.ts';
export * from './schemas.ts';
export { pluralize } from './words.ts';
