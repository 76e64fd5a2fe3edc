/** `EntityDefinition`: an entity inside a manifest (camelCase manifest form). */
import { z } from 'zod';
import { list, nonEmptyString, snakeKey } from './common.ts';
import { FieldDefinitionSchema } from './field.ts';
import { RelationDefinitionSchema } from './relation.ts';
import { ComputedFieldDefinitionSchema } from './computed.ts';
import { CapabilityDefinitionSchema } from './capability.ts';
import {
  EntityPoliciesSchema,
  EntityValidationSchema,
  EventDefinitionSchema,
  FieldPoliciesSchema,
  GovernanceSchema,
  LifecycleDefinitionSchema,
} from './entity-blocks.ts';

/** `EntityDefinition` (strict; `description` accepted per docs/decisions/A04.md). */
export const EntityDefinitionSchema = z
  .strictObject({
    key: snakeKey().describe('Unique entity identifier.'),
    name: nonEmptyString().describe('Singular display name.'),
    pluralName: nonEmptyString().describe('Plural display name.'),
    description: z.string().optional().describe('What the entity represents.'),
    fields: list(FieldDefinitionSchema).describe(
      'Field types: string, number, boolean, date, datetime, enum, text, object. A field has at least `key`, `type`, `name`.',
    ),
    relations: list(RelationDefinitionSchema).optional().describe('Kinds: belongs_to, has_many, many_to_many, self, polymorphic.'),
    computed: list(ComputedFieldDefinitionSchema).optional().describe('Kinds: expression, conditional, aggregation.'),
    lifecycle: LifecycleDefinitionSchema.optional().describe('State machine: field, initial state, transitions.'),
    events: EventDefinitionSchema.optional().describe('Domain event configuration.'),
    capabilities: list(CapabilityDefinitionSchema).optional().describe('User-facing actions.'),
    policies: EntityPoliciesSchema.optional().describe('Entity-level access policies.'),
    fieldPolicies: FieldPoliciesSchema.optional().describe('Field-level access policies.'),
    validation: EntityValidationSchema.optional().describe('Field and entity validation rules.'),
    governance: GovernanceSchema.optional().describe('Governance tier, rollback configuration.'),
  })
  .meta({ id: 'EntityDefinition', description: 'An entity with fields, relations, lifecycle and capabilities.' });

/** Inferred type of an entity (after parsing: defaults filled). */
export type EntityDefinition = z.infer<typeof EntityDefinitionSchema>;
/** Input type of an entity (what authors write). */
export type EntityDefinitionInput = z.input<typeof EntityDefinitionSchema>;
