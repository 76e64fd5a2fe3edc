/**
 * Building blocks shared by the contract schemas, plus the registry of human type labels that the
 * schema descriptions (`GET /api/schemas/*`) print for a member (`string (snake_case)`).
 */
import { z } from 'zod';

export { list } from '../../validation/list.ts';

/** The contract literal of `apiVersion` and of every schema description's `version`. */
export const CONTRACT_VERSION = 'platform/v1alpha1';

/** snake_case: a lowercase letter, then lowercase letters, digits or underscores. */
export const SNAKE_CASE = /^[a-z][a-z0-9_]*$/;

/** Message of a key that is not snake_case (wording of the reference service). */
export const SNAKE_CASE_MESSAGE = 'Must start with a lowercase letter and contain only lowercase letters, digits, or underscores (e.g. "customer_order")';

/** Human type labels for schema descriptions, kept out of JSON Schema output. */
export const typeLabels = z.registry<{ label: string }>();

/** Attaches a human type label used by the schema descriptions. */
export function labelled<T extends z.ZodType>(schema: T, label: string): T {
  typeLabels.add(schema, { label });
  return schema;
}

/** A non-empty string. */
export const nonEmptyString = () => z.string().min(1);

/** A snake_case key (`customer_order`). */
export const snakeKey = () => labelled(z.string().regex(SNAKE_CASE, { error: SNAKE_CASE_MESSAGE }), 'string (snake_case)');
