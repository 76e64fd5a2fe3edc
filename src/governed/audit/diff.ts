/**
 * RFC 6902 JSON Patch from one state to the next: objects compared key by key (recursively),
 * arrays and scalars replaced whole, and an object whose changes would take more than
 * {@link MAX_NESTED_DIFF_OPERATIONS} operations replaced whole too. Pointer segments are escaped
 * (`~` → `~0`, `/` → `~1`).
 */
import { MAX_NESTED_DIFF_OPERATIONS } from '../../limits.ts';
import { escapePointer, jsonEqual, type JsonPatchOperation } from '../patch.ts';

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * The operations that turn `before` into `after`.
 *
 * @example
 * diffStates({ status: 'DRAFT' }, { status: 'SENT' }); // [{ op: 'replace', path: '/status', value: 'SENT' }]
 */
export function diffStates(before: Record<string, unknown>, after: Record<string, unknown>, prefix = ''): JsonPatchOperation[] {
  const operations: JsonPatchOperation[] = [];
  collectDiff(before, after, prefix, operations);
  return operations;
}

/**
 * Appends the operations of one object level to `operations`. Nested levels append to the same
 * list: spreading a nested result into `push` passes one argument per operation, and an object
 * field with some 125,000 changed keys (a body of about 1 MB) overflowed the stack that way.
 * Nested levels are visited once each, so the work stays linear in the size of the two states.
 */
function collectDiff(before: Record<string, unknown>, after: Record<string, unknown>, prefix: string, operations: JsonPatchOperation[]): void {
  for (const key of Object.keys(before)) {
    if (!Object.hasOwn(after, key)) operations.push({ op: 'remove', path: `${prefix}/${escapePointer(key)}` });
  }
  for (const [key, value] of Object.entries(after)) {
    const path = `${prefix}/${escapePointer(key)}`;
    if (!Object.hasOwn(before, key)) operations.push({ op: 'add', path, value });
    else {
      const previous = before[key];
      if (isObject(previous) && isObject(value)) {
        const start = operations.length;
        collectDiff(previous, value, path, operations);
        if (operations.length - start > MAX_NESTED_DIFF_OPERATIONS) {
          operations.length = start;
          operations.push({ op: 'replace', path, value });
        }
      } else if (!jsonEqual(previous, value)) operations.push({ op: 'replace', path, value });
    }
  }
}
