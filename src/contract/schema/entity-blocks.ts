/** The optional blocks of an entity: lifecycle, events, policies, validation and governance. */
import { z } from 'zod';
import { list, nonEmptyString } from './common.ts';

/** `lifecycle` (strict): a state machine over one field. */
export const LifecycleDefinitionSchema = z
  .strictObject({
    field: nonEmptyString().describe('Field holding the state; must be a declared field.'),
    initial: nonEmptyString().describe('Initial state; one of `states`.'),
    states: list(nonEmptyString()).min(1).describe('States; unique.'),
    transitions: z
      .array(
        z.strictObject({
          key: nonEmptyString().describe('Transition key, unique.'),
          from: nonEmptyString().describe('Source state.'),
          to: nonEmptyString().describe('Target state.'),
          label: z.string().optional(),
          guards: list(z.string()).optional().describe('Guards checked before the move, each once.'),
          hooks: list(z.string()).optional().describe('Hooks run after the move, each once.'),
          event: z.string().optional(),
        }),
      )
      .min(1)
      .describe('Allowed moves between states.'),
  })
  .meta({ id: 'LifecycleDefinition', description: 'State machine: field, initial state, states, transitions.' });

/** `events` (strict): domain event configuration. */
export const EventDefinitionSchema = z
  .strictObject({
    exclude: list(z.string()).optional().describe('Field keys left out of event payloads.'),
    names: z
      .strictObject({ created: z.string().optional(), updated: z.string().optional(), deleted: z.string().optional() })
      .optional()
      .describe('Custom event names.'),
  })
  .meta({ id: 'EventDefinition', description: 'Domain event configuration.' });

/** Who may perform an action. */
export const ActionPolicySchema = z
  .strictObject({
    scope: z.enum(['public', 'tenant', 'workspace', 'owner', 'role', 'custom']).describe('Audience of the action.'),
    condition: z.string().optional().describe('Extra condition.'),
  })
  .meta({ id: 'ActionPolicy' });

/** `policies` (strict): entity-level access. */
export const EntityPoliciesSchema = z
  .strictObject({
    view: ActionPolicySchema.optional(),
    create: ActionPolicySchema.optional(),
    update: ActionPolicySchema.optional(),
    delete: ActionPolicySchema.optional(),
  })
  .meta({ id: 'EntityPoliciesDefinition', description: 'Entity-level access policies.' });

/** `fieldPolicies`: per field key, a view and/or update policy. */
export const FieldPoliciesSchema = z
  .record(z.string(), z.strictObject({ view: ActionPolicySchema.optional(), update: ActionPolicySchema.optional() }))
  .meta({ id: 'FieldPoliciesDefinition', description: 'Field-level access policies keyed by field key.' });

const severity = z.enum(['error', 'warning']);

/** `validation` (strict): entity invariants and server validators. */
export const EntityValidationSchema = z
  .strictObject({
    entityRules: z
      .array(
        z.strictObject({
          ruleId: nonEmptyString(),
          type: z.literal('entity_invariant'),
          paths: list(z.string()).min(1),
          messageKey: nonEmptyString(),
          defaultMessage: z.string().optional(),
          clientSafe: z.boolean(),
          blocking: z.boolean(),
          severity,
          validatorRef: z.string().optional(),
        }),
      )
      .optional()
      .describe('Invariants over several fields.'),
    serverValidators: z
      .array(
        z.strictObject({
          ruleId: nonEmptyString(),
          type: z.enum(['cross_entity', 'lifecycle', 'persistence_preview']),
          validatorRef: nonEmptyString(),
          messageKey: nonEmptyString(),
          defaultMessage: z.string().optional(),
          clientSafe: z.literal(false),
          async: z.literal(true),
          blocking: z.boolean(),
          severity,
          targetPaths: list(z.string()).optional(),
        }),
      )
      .optional()
      .describe('Validators that run on the server.'),
  })
  .meta({ id: 'EntityValidationBlock', description: 'Field and entity validation rules.' });

/** `governance`: tier and rollback; defaults tier-2 with rollback enabled. */
export const GovernanceSchema = z
  .object({
    tier: z.enum(['tier-1', 'tier-2', 'tier-3']).default('tier-2').describe('Governance tier.'),
    rollbackEnabled: z.boolean().default(true).describe('Whether rollback is allowed.'),
    maxRollbackDepth: z.int().positive().optional().describe('How many versions back a rollback may go.'),
  })
  .meta({ id: 'GovernanceDefinition', description: 'Governance tier and rollback configuration.' });

/** Inferred type of a lifecycle. */
export type LifecycleDefinition = z.infer<typeof LifecycleDefinitionSchema>;
/** Inferred type of `governance` (defaults filled). */
export type GovernanceDefinition = z.infer<typeof GovernanceSchema>;
