/**
 * Request and response shapes of the guidance answers (docs/contract-conventions.md#guidance-rules, docs/decisions/A14.md–docs/decisions/A16.md). The
 * REST routes validate bodies with the request schemas, MCP uses them as tool input/output schemas.
 * Generated pages and navigation reuse the contract's own page and navigation schemas.
 */
import { z } from 'zod';
import { SNAKE_CASE, SNAKE_CASE_MESSAGE } from '../schema/common.ts';
import { NavigationDefinitionSchema } from '../schema/navigation.ts';
import { PageDefinitionSchema } from '../schema/page.ts';
import { RELATION_KINDS } from '../schema/relation.ts';
import { MAX_EXPLAINED_ERRORS, MAX_GUIDANCE_ENTITIES, MAX_GUIDANCE_FIELDS, MAX_GUIDANCE_KEY_LENGTH, MAX_GUIDANCE_TEXT_LENGTH } from '../../limits.ts';

/** The `matchedDomain` values (docs/decisions/A14.md), in tie-break order. */
export const GUIDANCE_DOMAINS = ['crm', 'ticket', 'inventory', 'project', 'hr', 'order'] as const;

const entityKey = z.string().max(MAX_GUIDANCE_KEY_LENGTH).regex(SNAKE_CASE, { error: SNAKE_CASE_MESSAGE });
/** Free text of a request, capped before any pattern sees it. */
const freeText = () => z.string().max(MAX_GUIDANCE_TEXT_LENGTH);

/** Body of `POST /api/guidance/recommend`. */
export const RecommendInputSchema = z
  .object({ goal: freeText().min(1).describe('Plain-language goal, e.g. "a CRM for our sales team".') })
  .meta({ id: 'RecommendRequest' });

/** An entity a domain template suggests. */
export const SuggestedEntitySchema = z
  .object({
    key: z.string(),
    name: z.string(),
    pluralName: z.string(),
    reason: z.string(),
    suggestedFields: z.array(z.string()).describe('Field keys worth declaring; types are up to you.'),
  })
  .meta({ id: 'SuggestedEntity' });

/** A suggested relation from `source` to `target`. */
export const RelationSuggestionSchema = z
  .object({ source: z.string(), kind: z.enum(RELATION_KINDS), target: z.string(), reason: z.string() })
  .meta({ id: 'RelationSuggestion' });

/** Answer of `POST /api/guidance/suggest-pages`: dashboard first, then list/detail/create per entity. */
export const SuggestPagesResultSchema = z
  .object({ pages: z.array(PageDefinitionSchema), navigation: NavigationDefinitionSchema })
  .meta({ id: 'SuggestPagesResponse' });

/** Answer of `POST /api/guidance/recommend`; `matchedDomain` is null and the lists empty when nothing matched. */
export const RecommendResultSchema = z
  .object({
    matchedDomain: z.enum(GUIDANCE_DOMAINS).nullable(),
    suggestedEntities: z.array(SuggestedEntitySchema),
    suggestedPages: z.array(PageDefinitionSchema),
    suggestedRelations: z.array(RelationSuggestionSchema),
    suggestedNavigation: NavigationDefinitionSchema,
  })
  .meta({ id: 'RecommendResponse' });

/** Body of `POST /api/guidance/suggest-pages`. */
export const SuggestPagesInputSchema = z
  .object({
    entities: z
      .array(entityKey)
      .max(MAX_GUIDANCE_ENTITIES)
      .refine((keys) => new Set(keys).size === keys.length, { error: 'Entity keys must be unique' })
      .describe('snake_case entity keys, e.g. ["customer", "stock_level"].'),
  })
  .meta({ id: 'SuggestPagesRequest' });

/** Body of `POST /api/guidance/suggest-relations`. */
export const SuggestRelationsInputSchema = z
  .object({
    entities: z
      .array(
        z.object({
          key: entityKey.describe('Entity key.'),
          fields: z
            .array(z.string().max(MAX_GUIDANCE_KEY_LENGTH))
            .max(MAX_GUIDANCE_ENTITIES)
            .optional()
            .describe('Field keys of the entity; `<other>_id` fields reveal belongs_to relations.'),
        }),
      )
      .max(MAX_GUIDANCE_ENTITIES)
      // The answer grows with the fields of all entities together, not with either list alone.
      .refine((entities) => entities.reduce((total, entity) => total + (entity.fields?.length ?? 0), 0) <= MAX_GUIDANCE_FIELDS, {
        error: `At most ${MAX_GUIDANCE_FIELDS} field keys in all entities together`,
      })
      .describe(`The entities to relate (at most ${MAX_GUIDANCE_FIELDS} field keys in all).`),
  })
  .meta({ id: 'SuggestRelationsRequest' });

/** Answer of `POST /api/guidance/suggest-relations`. */
export const SuggestRelationsResultSchema = z.array(RelationSuggestionSchema).meta({ id: 'SuggestRelationsResponse' });

/** Body of `POST /api/guidance/explain-errors`: errors as the validators report them. */
export const ExplainErrorsInputSchema = z
  .object({
    errors: z
      .array(
        z.object({
          field: freeText().describe('Path of the offending value, as a validation result reports it.'),
          message: freeText().describe('The message of the validation result.'),
        }),
      )
      .max(MAX_EXPLAINED_ERRORS)
      .describe('The `errors` of a validation result (at most as many as a result lists).'),
  })
  .meta({ id: 'ExplainErrorsRequest' });

/** How to fix one validation error. */
export const ErrorExplanationSchema = z
  .object({
    path: z.string().describe('The `field` of the input error.'),
    problem: z.string().describe('The `message` of the input error.'),
    fix: z.string().describe('What to change, with the tool that gives schema context.'),
    relatedTools: z.array(z.string()).min(1).describe('MCP tools that help with this error.'),
  })
  .meta({ id: 'ErrorExplanation' });

/** Answer of `POST /api/guidance/explain-errors`: one explanation per input error, same order. */
export const ExplainErrorsResultSchema = z.array(ErrorExplanationSchema).meta({ id: 'ExplainErrorsResponse' });

/** A matched domain. */
export type GuidanceDomain = (typeof GUIDANCE_DOMAINS)[number];
/** A suggested entity. */
export type SuggestedEntity = z.infer<typeof SuggestedEntitySchema>;
/** A suggested relation. */
export type RelationSuggestion = z.infer<typeof RelationSuggestionSchema>;
/** Answer of `recommend`. */
export type RecommendResult = z.infer<typeof RecommendResultSchema>;
/** Answer of `suggestPages`. */
export type SuggestPagesResult = z.infer<typeof SuggestPagesResultSchema>;
/** One entity given to `suggestRelations`. */
export type RelationInputEntity = z.infer<typeof SuggestRelationsInputSchema>['entities'][number];
/** One explanation of `explainErrors`. */
export type ErrorExplanation = z.infer<typeof ErrorExplanationSchema>;
