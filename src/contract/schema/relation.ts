/** `RelationDefinition`: five relation kinds, told apart by `relation`. */
import { z } from 'zod';
import { list, nonEmptyString, snakeKey } from './common.ts';

const base = {
  key: snakeKey().describe('snake_case relation key; belongs_to and self keys end with `_id`.'),
  label: z.string().optional().describe('Display label.'),
};
const entity = () => nonEmptyString().describe('Key of the target entity.');

/** Every relation kind, each a strict object. */
export const RelationDefinitionSchema = z
  .discriminatedUnion('relation', [
    z.strictObject({
      ...base,
      relation: z.literal('belongs_to'),
      entity: entity(),
      required: z.boolean().optional(),
      foreignKey: z.string().optional(),
      createPolicy: z.enum(['create', 'attach', 'create-or-attach']).optional(),
      displayField: z.string().optional(),
    }),
    z.strictObject({ ...base, relation: z.literal('has_many'), entity: entity(), foreignKey: nonEmptyString() }),
    z.strictObject({
      ...base,
      relation: z.literal('many_to_many'),
      entity: entity(),
      through: nonEmptyString(),
      sourceKey: nonEmptyString(),
      targetKey: nonEmptyString(),
    }),
    z.strictObject({ ...base, relation: z.literal('self'), kind: z.enum(['belongs_to', 'has_many', 'many_to_many']) }),
    z.strictObject({
      ...base,
      relation: z.literal('polymorphic'),
      typeField: nonEmptyString(),
      idField: nonEmptyString(),
      allowedEntities: list(nonEmptyString()).min(1).optional(),
    }),
  ])
  .meta({ id: 'RelationDefinition', description: 'A relation: belongs_to, has_many, many_to_many, self or polymorphic.' });

/** The relation kinds. */
export const RELATION_KINDS = ['belongs_to', 'has_many', 'many_to_many', 'self', 'polymorphic'] as const;

/** Inferred type of a relation. */
export type RelationDefinition = z.infer<typeof RelationDefinitionSchema>;
