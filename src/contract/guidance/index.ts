/**
 * Guidance for building manifests (DECISIONS A14–A16): recommend a structure from a goal, suggest
 * pages and relations for entities, explain validation errors.
 */
export { explainErrors } from './explain.ts';
export { suggestPages } from './pages.ts';
export { recommend } from './recommend.ts';
export { suggestRelations } from './relations.ts';
export * from './schemas.ts';
export { pluralize } from './words.ts';
