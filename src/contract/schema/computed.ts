/** `ComputedFieldDefinition`: expression, conditional and aggregation fields, told apart by `formulaType`. */
import { z } from 'zod';
import { list, nonEmptyString, snakeKey } from './common.ts';

const base = {
  key: snakeKey().describe('snake_case key, distinct from field and relation keys.'),
  name: nonEmptyString().describe('Display name.'),
  type: z.enum(['number', 'string', 'boolean', 'date', 'datetime']).describe('Type of the computed value.'),
  helpText: z.string().optional(),
  dependencies: list(z.string()).optional().describe('Field keys the value depends on, each once.'),
};

/** The three computed kinds, each a strict object. */
export const ComputedFieldDefinitionSchema = z
  .discriminatedUnion('formulaType', [
    z.strictObject({ ...base, formulaType: z.literal('expression'), expression: nonEmptyString() }),
    z.strictObject({ ...base, formulaType: z.literal('conditional'), condition: nonEmptyString(), then: z.string(), else: z.string() }),
    z.strictObject({
      ...base,
      formulaType: z.literal('aggregation'),
      relation: nonEmptyString().describe('Relation aggregated over.'),
      operation: z.enum(['sum', 'count', 'avg', 'min', 'max']),
      field: z.string().optional().describe('Aggregated field; required except for count.'),
      filter: z.string().optional(),
    }),
  ])
  .meta({ id: 'ComputedFieldDefinition', description: 'A derived value: expression, conditional or aggregation.' });

/** Inferred type of a computed field. */
export type ComputedFieldDefinition = z.infer<typeof ComputedFieldDefinitionSchema>;
