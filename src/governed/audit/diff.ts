/**
 * RFC 6902 JSON Patch from one state to the next: objects compared key by key (recursively),
 * arrays and scalars replaced whole. Pointer segments are escaped (`~` → `~0`, `/` → `~1`).
 */
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
  for (const key of Object.keys(before)) {
    if (!Object.hasOwn(after, key)) operations.push({ op: 'remove', path: `${prefix}/${escapePointer(key)}` });
  }
  for (const [key, value] of Object.entries(after)) {
    const path = `${prefix}/${escapePointer(key)}`;
    if (!Object.hasOwn(before, key)) operations.push({ op: 'add', path, value });
    else {
      const previous = before[key];
      if (isObject(previous) && isObject(value)) operations.push(...diffStates(previous, value, path));
      else if (!jsonEqual(previous, value)) operations.push({ op: 'replace', path, value });
    }
  }
  return operations;
}
