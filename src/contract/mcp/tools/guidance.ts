/** Guidance tools: drafting help from a goal or entity list (REST `POST /api/guidance/*`). */
import { z } from 'zod';
import * as services from '../../services.ts';
import {
  ErrorExplanationSchema,
  ExplainErrorsInputSchema,
  RecommendInputSchema,
  RecommendResultSchema,
  RelationSuggestionSchema,
  SuggestPagesInputSchema,
  SuggestPagesResultSchema,
  SuggestRelationsInputSchema,
} from '../../guidance/index.ts';
import { bullets, defineTool, wrapped } from '../tool.ts';

/** The 4 guidance tools, in docs/contract-conventions.md order. */
export const guidanceTools = [
  defineTool({
    name: 'recommend_manifest_structure',
    title: 'Recommend a manifest structure',
    description:
      'Turn a plain-language goal ("a CRM for a small sales team") into a starting structure: the matched domain template ' +
      '(crm, ticket, inventory, project, hr, order), suggested entities with fields, pages, relations and navigation. No ' +
      'match gives `matchedDomain: null` and empty lists; rephrase with a domain word. Same body as POST ' +
      '/api/guidance/recommend. Next: get_manifest_schema, write the manifest, then validate_manifest.',
    input: RecommendInputSchema,
    output: RecommendResultSchema,
    run: (_context, args) => {
      const data = services.checked.recommend(args);
      if (data.matchedDomain === null) {
        return {
          data,
          summary:
            'No matching domain template found for this goal. Try being more specific (e.g., a CRM, a ticketing system, ' +
            'inventory management, project management, HR, or order management), or list the entities and call ' +
            'suggest_page_set_for_entities.',
        };
      }
      const summary = [
        `## Recommended Structure (${data.matchedDomain})`,
        '',
        `Entities: ${data.suggestedEntities.map((e) => e.key).join(', ')}.`,
        `${data.suggestedPages.length} pages, ${data.suggestedRelations.length} relations, ${data.suggestedNavigation.items.length} navigation items.`,
        'Build the manifest from this, then call validate_manifest.',
      ].join('\n');
      return { summary, data };
    },
  }),
  defineTool({
    name: 'suggest_page_set_for_entities',
    title: 'Suggest pages for entities',
    description:
      'Generate the standard page set for entity keys: a dashboard, then per entity a list, detail and create page ' +
      '(titles and paths with real English plurals), plus navigation with a dashboard item and one item per list page. ' +
      'Same body as POST /api/guidance/suggest-pages. Next: paste into `spec.pages` / `spec.navigation` and validate_manifest.',
    input: SuggestPagesInputSchema,
    output: SuggestPagesResultSchema,
    run: (_context, args) => {
      const data = services.checked.suggestPages(args);
      const summary = [
        '## Suggested Pages',
        '',
        `Generated ${data.pages.length} pages for ${args.entities.length} entities:`,
        bullets(data.pages.map((p) => `**${p.key}** (${p.type}) ${p.path}`)),
      ].join('\n');
      return { summary, data };
    },
  }),
  defineTool({
    name: 'suggest_relations',
    title: 'Suggest relations',
    description:
      'Detect relations between entities from their field keys: a field `<other_entity>_id` becomes a belongs_to relation ' +
      'from its entity to the other one. Returns `{ relations: [...] }` (POST /api/guidance/suggest-relations answers the ' +
      'bare array, also given as JSON text); empty when nothing is detected. Next: add them to `relations` of each entity.',
    input: SuggestRelationsInputSchema,
    output: z.object({ relations: z.array(RelationSuggestionSchema) }),
    run: (_context, args) => {
      const data = services.checked.suggestRelations(args);
      const summary =
        data.length === 0
          ? 'No relations suggested. Add more entities or include field keys ending in "_id" for better detection.'
          : ['## Suggested Relations', '', bullets(data.map((r) => `${r.source} ${r.kind} ${r.target}: ${r.reason}`))].join('\n');
      return { summary, data, structured: wrapped('relations', data) };
    },
  }),
  defineTool({
    name: 'explain_validation_errors',
    title: 'Explain validation errors',
    description:
      'Explain errors returned by validate_manifest / validate_entity / validate_page: for each `{ field, message }` the ' +
      'path, the problem, a concrete fix and the tools that give schema context, in the same order. Returns ' +
      '`{ explanations: [...] }` (POST /api/guidance/explain-errors answers the bare array, also given as JSON text). ' +
      'Next: apply the fixes and validate again.',
    input: ExplainErrorsInputSchema,
    output: z.object({ explanations: z.array(ErrorExplanationSchema) }),
    run: (_context, args) => {
      const data = services.checked.explainErrors(args);
      const summary = [
        '## Error Explanations',
        '',
        ...data.map((e) => `### ${e.path}\n${e.problem}\n**Fix:** ${e.fix}\nRelated tools: ${e.relatedTools.join(', ')}`),
      ].join('\n');
      return { summary, data, structured: wrapped('explanations', data) };
    },
  }),
];
