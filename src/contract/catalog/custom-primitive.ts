/**
 * A custom primitive ready for the registry: its validated contract, catalog entry, compiled props
 * schema and examples. Contracts come from handler options or from the project folder; both go
 * through {@link loadCustomPrimitive}, which throws a ConfigurationError naming the bad path.
 */
import type { z } from 'zod';
import { ConfigurationError } from '../../errors.ts';
import { compileObject, sampleValue } from './custom-props.ts';
import { issuePath, parseOptions } from './props-issues.ts';
import { PrimitiveContractSchema, type CustomPrimitiveEntry, type PrimitiveContract, type PrimitiveExample } from './schemas.ts';

/** A registered custom primitive. */
export interface CustomPrimitive {
  contract: PrimitiveContract;
  entry: CustomPrimitiveEntry;
  props: z.ZodObject;
  examples: PrimitiveExample[];
}

/** One example built from defaults and placeholders, for contracts that ship none. */
export function deriveExample(contract: PrimitiveContract): PrimitiveExample {
  const required = new Set(contract.props.required ?? []);
  const props: Record<string, unknown> = {};
  for (const [name, definition] of Object.entries(contract.props.properties)) {
    if (!required.has(name) && definition.required !== true && definition.default === undefined) continue;
    const value = sampleValue(definition, name);
    if (value !== undefined) props[name] = value;
  }
  return { name: 'default', description: 'Required props with their defaults or placeholder values.', props };
}

/**
 * Validates a contract and builds its registry record. `label` names where the contract came
 * from (`options.custom.0`, or a file `primitives/x/x.contract.yaml` with `separator` `:`) for
 * the error message.
 */
export function loadCustomPrimitive(document: unknown, label: string, separator = '.'): CustomPrimitive {
  const parsed = PrimitiveContractSchema.safeParse(document, parseOptions);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigurationError(issuePath(label, issue.path, separator), issue.message);
  }
  const contract = parsed.data;
  const props = compileObject(contract.props.properties, contract.props.required);
  const examples = contract.examples ?? [deriveExample(contract)];
  for (const [index, example] of examples.entries()) {
    const result = props.safeParse(example.props, parseOptions);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      throw new ConfigurationError(issuePath(label, ['examples', index, 'props', ...issue.path], separator), issue.message);
    }
  }
  const entry: CustomPrimitiveEntry = {
    key: contract.key,
    category: contract.category,
    description: contract.description ?? contract.label,
    bestFor: [],
    source: 'custom',
    version: contract.version,
    label: contract.label,
    contract,
    ...(contract.slots ? { slots: contract.slots } : {}),
  };
  return { contract, entry, props, examples };
}
