/**
 * RFC 6902 JSON Patch applied to the camelCase business fields of a record. Paths into
 * server-assigned fields and prototype-polluting segments are refused with 400, and so are
 * `copy`/`move` taking a value out of a redacted field into a field redacted differently (see
 * docs/redaction.md). The work is bounded: at most {@link MAX_PATCH_OPERATIONS} operations, at
 * most {@link MAX_PATCH_INSERTED_VALUES} values inserted, never nesting past {@link MAX_JSON_DEPTH}.
 */
import { validationError, type FieldIssue } from '../errors.ts';
import { MAX_JSON_DEPTH, MAX_PATCH_INSERTED_VALUES, MAX_PATCH_OPERATIONS } from '../limits.ts';

/** One JSON Patch operation. */
export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  value?: unknown;
  from?: string;
}

const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);

/** Escapes one JSON Pointer segment (`~` → `~0`, `/` → `~1`). */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function parsePointer(pointer: string): string[] | null {
  if (pointer === '' || !pointer.startsWith('/')) return null;
  const segments = pointer.slice(1).split('/');
  if (segments.some((segment) => /~[^01]|~$/.test(segment))) return null;
  return segments.map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

type Container = Record<string, unknown> | unknown[];
const isContainer = (value: unknown): value is Container => value !== null && typeof value === 'object';

/** Deep structural equality of JSON values (for `test` and no-op detection). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, index) => jsonEqual(item, b[index]));
  if (isContainer(a) && isContainer(b) && !Array.isArray(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && jsonEqual((a as Record<string, unknown>)[key], b[key]));
  }
  return false;
}

class PatchFailure extends Error {}

function parent(document: Record<string, unknown>, segments: string[]): { container: Container; key: string } {
  let node: unknown = document;
  for (const segment of segments.slice(0, -1)) {
    if (Array.isArray(node)) node = /^(0|[1-9]\d*)$/.test(segment) ? node[Number(segment)] : undefined;
    else if (isContainer(node)) node = Object.hasOwn(node, segment) ? (node as Record<string, unknown>)[segment] : undefined;
    else node = undefined;
    if (!isContainer(node)) throw new PatchFailure('path does not exist');
  }
  return { container: node as Container, key: segments[segments.length - 1]! };
}

function arrayIndex(array: unknown[], key: string, allowEnd: boolean): number {
  if (allowEnd && key === '-') return array.length;
  if (!/^(0|[1-9]\d*)$/.test(key)) throw new PatchFailure('array index expected');
  const index = Number(key);
  if (index > array.length || (!allowEnd && index === array.length)) throw new PatchFailure('array index out of range');
  return index;
}

function read(document: Record<string, unknown>, segments: string[]): unknown {
  const { container, key } = parent(document, segments);
  if (Array.isArray(container)) return container[arrayIndex(container, key, false)];
  if (!Object.hasOwn(container, key)) throw new PatchFailure('path does not exist');
  return container[key];
}

function remove(document: Record<string, unknown>, segments: string[]): unknown {
  const { container, key } = parent(document, segments);
  if (Array.isArray(container)) return container.splice(arrayIndex(container, key, false), 1)[0];
  if (!Object.hasOwn(container, key)) throw new PatchFailure('path does not exist');
  const value = container[key];
  delete container[key];
  return value;
}

function add(document: Record<string, unknown>, segments: string[], value: unknown, replace: boolean): void {
  const { container, key } = parent(document, segments);
  if (Array.isArray(container)) {
    const index = arrayIndex(container, key, !replace);
    container.splice(index, replace ? 1 : 0, structuredClone(value));
    return;
  }
  if (replace && !Object.hasOwn(container, key)) throw new PatchFailure('path does not exist');
  container[key] = structuredClone(value);
}

/**
 * The redaction class of a top-level field: `credential`, `sensitive`, `hash`, `length` or
 * `value` (kept in clear). See {@link leaksRedactedValue} for what it allows.
 */
export type RedactionClass = 'credential' | 'sensitive' | 'hash' | 'length' | 'value';

/** Checks of {@link parsePatch} that depend on the entity. */
export interface PatchRules {
  /** True for a top-level field a patch must not touch (server-assigned). */
  isProtected(field: string): boolean;
  /** The redaction class of a top-level field. @default every field is `value` */
  redactionClass?(field: string): RedactionClass;
}

/**
 * Whether `copy`/`move` from field `from` into field `to` would carry a redacted value somewhere it
 * is kept with less redaction: the audit diff and version snapshots redact by the field a value
 * lands in, so it would appear there in clear (or hashed, or as a length). Allowed: anything out
 * of a `value` field; within one field; into a field of the same class; out of a `sensitive`,
 * `hash` or `length` field into a withheld one (`sensitive` or `credential`). A credential never
 * leaves the credential fields.
 */
function leaksRedactedValue(from: string, to: string, classOf: (field: string) => RedactionClass): boolean {
  if (from === to) return false;
  const source = classOf(from);
  const target = classOf(to);
  if (source === 'value' || source === target || target === 'credential') return false;
  return source === 'credential' || target !== 'sensitive';
}

/** Checks the shape of a `patch` array; returns the operations or throws 400 naming each bad one. */
export function parsePatch(input: unknown, rules: PatchRules | ((field: string) => boolean)): JsonPatchOperation[] {
  if (!Array.isArray(input)) throw validationError('patch must be an array of JSON Patch operations', [{ path: 'patch', message: 'Expected an array' }]);
  if (input.length > MAX_PATCH_OPERATIONS)
    throw validationError(`A JSON Patch holds at most ${MAX_PATCH_OPERATIONS} operations`, [
      { path: 'patch', message: `Expected at most ${MAX_PATCH_OPERATIONS} operations` },
    ]);
  const { isProtected, redactionClass = () => 'value' } = typeof rules === 'function' ? { isProtected: rules } : rules;
  const issues: FieldIssue[] = [];
  const checkPointer = (pointer: unknown, at: string): string[] | null => {
    const segments = typeof pointer === 'string' ? parsePointer(pointer) : null;
    if (segments === null) issues.push({ path: at, message: 'Must be a JSON Pointer to a field, e.g. "/status"' });
    else if (segments.some((segment) => FORBIDDEN_SEGMENTS.has(segment))) issues.push({ path: at, message: 'Path segment not allowed' });
    else if (isProtected(segments[0]!)) issues.push({ path: at, message: `${segments[0]} is server-assigned and cannot be changed` });
    else return segments;
    return null;
  };
  input.forEach((operation: unknown, index) => {
    const at = `patch.${index}`;
    if (!isContainer(operation) || Array.isArray(operation)) {
      issues.push({ path: at, message: 'Expected a JSON Patch operation object' });
      return;
    }
    const { op } = operation;
    if (typeof op !== 'string' || !OPS.has(op)) {
      issues.push({ path: `${at}.op`, message: 'Must be one of: add, remove, replace, move, copy, test' });
      return;
    }
    const target = checkPointer(operation.path, `${at}.path`);
    if ((op === 'add' || op === 'replace' || op === 'test') && !Object.hasOwn(operation, 'value')) issues.push({ path: `${at}.value`, message: 'Required' });
    if (op === 'move' || op === 'copy') {
      const source = checkPointer(operation.from, `${at}.from`);
      if (source !== null && target !== null && leaksRedactedValue(source[0]!, target[0]!, redactionClass)) {
        issues.push({
          path: `${at}.from`,
          message: `Cannot ${op} the value of ${source[0]} (${redactionClass(source[0]!)}) into ${target[0]}: it would no longer be redacted the same way`,
        });
      }
    }
  });
  if (issues.length > 0) throw validationError('Invalid JSON Patch', issues);
  return input as JsonPatchOperation[];
}

/**
 * Counts the values inside `value` (itself included) against what is left of the insertion
 * budget, and checks that it fits under the nesting limit when placed at `segments`. Iterative;
 * stops as soon as the budget is spent.
 */
function charge(value: unknown, segments: readonly string[], budget: { left: number }): void {
  const stack: Array<[unknown, number]> = [[value, segments.length + 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (--budget.left < 0) throw new PatchFailure(`the patch would insert more than ${MAX_PATCH_INSERTED_VALUES} values`);
    if (!isContainer(current)) continue;
    if (depth > MAX_JSON_DEPTH) throw new PatchFailure(`the result would be nested deeper than ${MAX_JSON_DEPTH} levels`);
    for (const child of Array.isArray(current) ? current : Object.values(current)) stack.push([child, depth + 1]);
  }
}

/** Applies operations to a copy of `document`; throws 400 naming the failing operation. */
export function applyPatch(document: Record<string, unknown>, operations: readonly JsonPatchOperation[]): Record<string, unknown> {
  const result = structuredClone(document);
  const budget = { left: MAX_PATCH_INSERTED_VALUES };
  operations.forEach((operation, index) => {
    const segments = parsePointer(operation.path)!;
    try {
      switch (operation.op) {
        case 'add':
        case 'replace':
          charge(operation.value, segments, budget);
          add(result, segments, operation.value, operation.op === 'replace');
          break;
        case 'remove':
          remove(result, segments);
          break;
        case 'move': {
          const from = parsePointer(operation.from!)!;
          if (operation.path.startsWith(`${operation.from!}/`)) throw new PatchFailure('cannot move a value into itself');
          const moved = read(result, from);
          charge(moved, segments, budget);
          remove(result, from);
          add(result, segments, moved, false);
          break;
        }
        case 'copy': {
          const copied = read(result, parsePointer(operation.from!)!);
          charge(copied, segments, budget);
          add(result, segments, copied, false);
          break;
        }
        case 'test':
          if (!jsonEqual(read(result, segments), operation.value)) throw new PatchFailure('test failed: the value differs');
          break;
      }
    } catch (error) {
      if (error instanceof PatchFailure)
        throw validationError(`JSON Patch operation ${index} failed`, [{ path: `patch.${index}.path`, message: error.message }]);
      throw error;
    }
  });
  return result;
}
