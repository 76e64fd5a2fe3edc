/** Rules over the capabilities of an entity (docs/decisions/A05.md). */
import type { CapabilityInput } from '../../schema/index.ts';
import { BASE_FIELD_KEYS, hasKey, keyed, repeatedValues, hasRepeats } from './helpers.ts';
import { rule, type Report } from './types.ts';

/**
 * Runs `check` on every input of type `type` of the capability with the input's path (built only
 * for those: this runs for every input of every valid document).
 */
const eachInput = (
  id: string,
  description: string,
  type: CapabilityInput['type'],
  check: (input: CapabilityInput, at: string, report: Report, known?: ReadonlyMap<string, unknown>) => void,
) =>
  rule({
    id,
    scope: 'capability',
    description,
    check: ({ capability, at, index }, report) => {
      for (const input of capability.input ?? []) {
        if (input.type === type) check(input, keyed(`${at}.input`, input.key), report, index?.entities);
      }
    },
  });

/** Capability rules, in the order they run. */
export const capabilityRules = [
  rule({
    id: 'capability.unique-keys',
    scope: 'entity',
    description: 'Capability keys are unique within an entity and do not conflict with field keys or base entity fields.',
    check: ({ entity, at }, report) => {
      const capabilities = entity.capabilities ?? [];
      if (capabilities.length === 0) return;
      for (const key of repeatedValues(capabilities.map((capability) => capability.key))) {
        report(keyed(`${at}.capabilities`, key), `Duplicate capability key: "${key}"`);
      }
      const fields = new Set(entity.fields.map((field) => field.key));
      for (const { key } of capabilities) {
        if (fields.has(key)) report(keyed(`${at}.capabilities`, key), `Capability key "${key}" conflicts with a field key`);
        else if (BASE_FIELD_KEYS.has(key)) report(keyed(`${at}.capabilities`, key), `Capability key "${key}" conflicts with a reserved base entity field key`);
      }
    },
  }),
  rule({
    id: 'capability.transition',
    scope: 'capability',
    description: 'A transition capability references a transition key of the entity lifecycle.',
    check: ({ capability, transitionKeys, at }, report) => {
      if (capability.type !== 'transition') return;
      const { key, transition } = capability;
      if (transitionKeys === undefined) {
        report(at, `Capability "${key}" references transition "${transition}" but entity has no lifecycle defined`);
      } else if (!hasKey(transitionKeys, transition)) {
        report(at, `Capability "${key}" references unknown lifecycle transition "${transition}"`);
      }
    },
  }),
  rule({
    id: 'capability.unique-inputs',
    scope: 'capability',
    description: 'Input keys are unique within a capability.',
    check: ({ capability, at }, report) => {
      for (const key of repeatedValues((capability.input ?? []).map((input) => input.key))) {
        report(keyed(`${at}.input`, key), `Duplicate input key: "${key}"`);
      }
    },
  }),
  eachInput(
    'capability.select-options',
    'Select inputs declare non-empty, unique options; a select defaultValue is one of them.',
    'select',
    (input, at, report) => {
      const options = input.options ?? [];
      if (options.length === 0) report(`${at}.options`, `Select input "${input.key}" must declare at least one option`);
      else if (hasRepeats(options)) report(`${at}.options`, 'options must be unique');
      if (input.defaultValue !== undefined && !options.includes(String(input.defaultValue))) {
        report(`${at}.defaultValue`, 'defaultValue must be one of the declared options');
      }
    },
  ),
  eachInput(
    'capability.entity-input',
    'Entity inputs specify the target entity key (an entity of the manifest, when validating a manifest).',
    'entity',
    (input, at, report, known) => {
      if (input.entity === undefined) report(`${at}.entity`, `Entity input "${input.key}" must specify the target entity key`);
      else if (known !== undefined && !known.has(input.entity))
        report(`${at}.entity`, `Entity input "${input.key}" references unknown entity key: "${input.entity}"`);
    },
  ),
];
