/**
 * `recommend(goal)` (docs/decisions/A14.md): picks the domain template whose keywords occur most often as
 * whole words of the goal (plural-folded, case-insensitive), never as substrings, so "three" is not
 * "hr" and "border" is not "order".
 */
import { suggestPages } from './pages.ts';
import type { RecommendResult } from './schemas.ts';
import { domainTemplates, type DomainTemplate } from './templates.ts';
import { foldWord, wordsOf } from './words.ts';

const foldedKeywords = new Map<DomainTemplate, string[]>(domainTemplates.map((template) => [template, template.keywords.map(foldWord)]));

/** The best template for a goal, or undefined when no keyword occurs. Ties keep the earlier template. */
export function matchTemplate(goal: string): DomainTemplate | undefined {
  const words = wordsOf(goal);
  let best: DomainTemplate | undefined;
  let bestScore = 0;
  for (const template of domainTemplates) {
    const score = foldedKeywords.get(template)!.filter((keyword) => words.has(keyword)).length;
    if (score > bestScore) {
      best = template;
      bestScore = score;
    }
  }
  return best;
}

/**
 * A starting structure for a goal: the template's entities and relations plus the page set and
 * navigation for its entities. No match → `matchedDomain: null` and empty lists.
 *
 * @example
 * recommend('A CRM for our sales team').matchedDomain; // 'crm'
 */
export function recommend(goal: string): RecommendResult {
  const template = matchTemplate(goal);
  if (!template) return { matchedDomain: null, suggestedEntities: [], suggestedPages: [], suggestedRelations: [], suggestedNavigation: { items: [] } };
  const { pages, navigation } = suggestPages(template.entities.map((entity) => entity.key));
  return {
    matchedDomain: template.domain,
    suggestedEntities: template.entities.map((entity) => ({ ...entity, suggestedFields: [...entity.suggestedFields] })),
    suggestedPages: pages,
    suggestedRelations: template.relations.map((relation) => ({ ...relation })),
    suggestedNavigation: navigation,
  };
}
