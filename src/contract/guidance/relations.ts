/**
 * Relation suggestions (docs/contract-conventions.md#guidance-rules guidance rule 3): a field `<other>_id` naming another input entity
 * is a belongs_to from its holder; then the domain templates' relations between input entities.
 */
import type { RelationInputEntity, RelationSuggestion } from './schemas.ts';
import { domainTemplates } from './templates.ts';

const templateRelations = domainTemplates.flatMap((template) => template.relations);

/**
 * Suggested relations, in input order, at most one per source/target pair.
 *
 * @example
 * suggestRelations([{ key: 'invoice', fields: ['customer_id'] }, { key: 'customer' }]);
 * // [{ source: 'invoice', kind: 'belongs_to', target: 'customer', reason: '…' }]
 */
export function suggestRelations(entities: readonly RelationInputEntity[]): RelationSuggestion[] {
  const keys = new Set(entities.map((entity) => entity.key));
  const seen = new Set<string>();
  const suggestions: RelationSuggestion[] = [];
  const add = (suggestion: RelationSuggestion) => {
    const pair = `${suggestion.source}\u0000${suggestion.target}`;
    if (seen.has(pair)) return;
    seen.add(pair);
    suggestions.push(suggestion);
  };
  for (const entity of entities) {
    for (const field of entity.fields ?? []) {
      const target = /^(.+)_id$/.exec(field)?.[1];
      if (target === undefined || !keys.has(target)) continue;
      const reason =
        target === entity.key
          ? `Field "${field}" points at another ${target}: a self-reference, e.g. a parent record.`
          : `Field "${field}" holds the id of a ${target}, so each ${entity.key} belongs to one ${target}.`;
      add({ source: entity.key, kind: 'belongs_to', target, reason });
    }
    for (const relation of templateRelations) {
      if (relation.source === entity.key && keys.has(relation.target)) add({ ...relation });
    }
  }
  return suggestions;
}
