/**
 * The quick check as generated JavaScript: one function per object, array, record and tagged
 * union node, with every member's test written inline and every member read by its name.
 *
 * Why generate code: validation is memory bound on a server, whose caches the network stack keeps
 * evicting between requests. The closure back end walks a closure, a member table and a `Map`
 * lookup per value; here a member is one named property load (a monomorphic inline cache for
 * documents of one layout, as `JSON.parse` makes them) followed by inline comparisons. zod itself
 * generates its object parsers the same way, and this module is used only where zod's own probe
 * says generated code is allowed (see `quick-check.ts`).
 *
 * The source is built from the schema alone, never from input: keys and tags are written with
 * `JSON.stringify`, and anything that is not a plain literal (patterns, unusual values) is passed
 * in as a constant.
 */
import { valueNestingDepth } from '../../http/json.ts';
import type { Condition, Member, Shape } from './quick-check-shape.ts';

/** A compiled check: `true` proves the value matches; `false` means "not proven". `level`: see `quick-check.ts`. */
type Check = (value: unknown, level?: number) => boolean;

/** Helpers every generated check uses. */
const PRELUDE = `"use strict";
const OP = Object.prototype, getProto = Object.getPrototypeOf, isArray = Array.isArray;
const isFinite = Number.isFinite, isSafeInteger = Number.isSafeInteger, hasOwn = Object.hasOwn;
function plain(v) {
  if (typeof v !== "object" || v === null || isArray(v)) return false;
  const p = getProto(v);
  return p === OP || p === null;
}
`;

/** Whether `value` is written as a plain literal, compared with `===` exactly as a Set compares it. */
function hasPlainLiteral(value: unknown): boolean {
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  return typeof value === 'string' || typeof value === 'boolean' || value === null;
}

class SourceWriter {
  /** Values the source refers to as `c[i]` (patterns, values with no plain literal). */
  readonly constants: unknown[] = [];
  private readonly names = new Map<Shape, string>();
  private readonly functions: string[] = [];

  /**
   * With `maxDepth`, every function also takes the nesting level of its value (`d`, 1 for the
   * document itself) and proves that nothing below it is nested deeper than `maxDepth`, including
   * members no schema describes (`unknown` values and keys a stripping object would drop).
   */
  constructor(private readonly maxDepth?: number) {}

  /** The generated module: the prelude, every function, and the root check returned. */
  module(root: Shape): string {
    const call = this.expression(root, 'value', 'level');
    return `${PRELUDE}${this.functions.join('\n')}\nreturn function quickCheck(value, level = 1) { return ${call}; };`;
  }

  /** A call of a generated function on `v` at level `d` (the level is passed only when depth is bounded). */
  private call(name: string, v: string, d: string): string {
    return this.maxDepth === undefined ? `${name}(${v})` : `${name}(${v}, ${d})`;
  }

  /** The expression proving a value of any content nests no deeper than allowed (`true` when depth is not bounded). */
  private shallow(v: string, d: string): string {
    if (this.maxDepth === undefined) return 'true';
    const max = this.maxDepth;
    // Iterative, so a hostile value cannot overflow the stack here.
    const within = (value: unknown, level: number) => valueNestingDepth(value, max - level + 1) <= max - level + 1;
    return `(typeof ${v} !== "object" || ${v} === null || ${this.literal(within)}(${v}, ${d}))`;
  }

  /** Source of `value` as a literal, or a reference to a constant. */
  private literal(value: unknown): string {
    if (hasPlainLiteral(value)) return typeof value === 'number' ? String(value) : JSON.stringify(value);
    this.constants.push(value);
    return `c[${this.constants.length - 1}]`;
  }

  /**
   * A boolean expression testing the variable `v` against `shape` (`v` is read, never assigned).
   * Callers put it in parentheses wherever an operator binds tighter than its top level.
   */
  private expression(shape: Shape, v: string, d: string): string {
    switch (shape.kind) {
      case 'never':
        return 'false';
      case 'unknown':
        return this.shallow(v, d);
      case 'string':
        return this.all([`typeof ${v} === "string"`, ...shape.conditions.map((condition) => this.condition(condition, v, `${v}.length`))]);
      case 'number':
        return this.all([`typeof ${v} === "number"`, `isFinite(${v})`, ...shape.conditions.map((condition) => this.condition(condition, v, v))]);
      case 'boolean':
        return `typeof ${v} === "boolean"`;
      case 'oneOf': {
        // `===` differs from the Set's SameValueZero only for NaN, which `literal` passes as a constant.
        if (!shape.values.every(hasPlainLiteral)) return `${this.literal(new Set(shape.values))}.has(${v})`;
        return `(${shape.values.map((value) => `${v} === ${this.literal(value)}`).join(' || ') || 'false'})`;
      }
      case 'optional':
        return `(${v} === undefined || ${this.expression(shape.inner, v, d)})`;
      case 'nullable':
        return `(${v} === null || ${this.expression(shape.inner, v, d)})`;
      case 'union':
        return `(${shape.options.map((option) => this.expression(option, v, d)).join(' || ') || 'false'})`;
      case 'array':
      case 'object':
      case 'record':
      case 'tagged':
        return this.call(this.functionFor(shape), v, d);
    }
  }

  /** `a && b && …` of the non-trivial parts. */
  private all(parts: string[]): string {
    return parts.length === 1 ? parts[0]! : `(${parts.join(' && ')})`;
  }

  /** One condition on `v`, whose size (length, or the number itself) is `size`. */
  private condition(condition: Condition, v: string, size: string): string {
    switch (condition.kind) {
      case 'atLeast':
        return `${size} >= ${this.literal(condition.value)}`;
      case 'atMost':
        return `${size} <= ${this.literal(condition.value)}`;
      case 'exactly':
        return `${size} === ${this.literal(condition.value)}`;
      case 'above':
        return `${size} > ${this.literal(condition.value)}`;
      case 'below':
        return `${size} < ${this.literal(condition.value)}`;
      case 'safeInteger':
        return `isSafeInteger(${v})`;
      case 'pattern':
        return `${this.literal(condition.pattern)}.test(${v})`;
    }
  }

  /** The name of the function checking `shape`, written on first use (named first, so cycles refer to it). */
  private functionFor(shape: Extract<Shape, { kind: 'array' | 'object' | 'record' | 'tagged' }>): string {
    const known = this.names.get(shape);
    if (known) return known;
    const name = `check${this.names.size}`;
    this.names.set(shape, name);
    const head = this.maxDepth === undefined ? `function ${name}(v) {` : `function ${name}(v, d) {\n  if (d > ${this.maxDepth}) return false;`;
    this.functions.push(`${head}\n${this.body(shape)}\n}`);
    return name;
  }

  private body(shape: Extract<Shape, { kind: 'array' | 'object' | 'record' | 'tagged' }>): string {
    switch (shape.kind) {
      case 'array':
        return this.arrayBody(shape);
      case 'object':
        return this.objectBody(shape);
      case 'record':
        return this.recordBody(shape);
      case 'tagged':
        return this.taggedBody(shape);
    }
  }

  private arrayBody(shape: Extract<Shape, { kind: 'array' }>): string {
    const size = shape.conditions.map((condition) => this.condition(condition, 'v', 'n'));
    return [
      '  if (!isArray(v)) return false;',
      '  const n = v.length;',
      ...(size.length > 0 ? [`  if (!(${this.all(size)})) return false;`] : []),
      `  for (let i = 0; i < n; i++) { const e = v[i]; if (!(${this.expression(shape.element, 'e', 'd + 1')})) return false; }`,
      '  return true;',
    ].join('\n');
  }

  /**
   * Reads each member by name and tests it inline. A strict object (unknown keys refused) also
   * counts its keys: any key beyond the members present must be unknown (not proven) or set to
   * `undefined`.
   */
  private objectBody(shape: Extract<Shape, { kind: 'object' }>): string {
    // A member named like an Object.prototype property must be read as an own property only; one
    // named `__proto__` cannot be read by name at all, so such an object is left to zod.
    if (shape.members.some((member) => member.key === '__proto__')) return '  return false;';
    const lines = ['  if (!plain(v)) return false;', '  let m;'];
    const required = shape.members.filter((member) => !member.optional).length;
    // Keys are counted where an unknown one matters: a strict object refuses it; with bounded depth,
    // the value of a key a stripping object drops must still be within the bound.
    const counted = shape.strict || this.maxDepth !== undefined;
    if (counted) lines.push(`  let present = ${required};`);
    for (const member of shape.members) lines.push(...this.memberLines(member, counted));
    if (!counted) return [...lines, '  return true;'].join('\n');
    // More keys than members present: an unknown key, or a known one set to `undefined` (which
    // zod treats as absent). Only then does the keyed walk run.
    const known = this.literal(new Set(shape.members.map((member) => member.key)));
    // (An own `__proto__` key cannot be read by name: such an object is not proven.)
    const unknownKey = shape.strict
      ? 'return false;'
      : `{ if (k === "__proto__") return false; const x = v[k]; if (!${this.shallow('x', 'd + 1')}) return false; }`;
    lines.push(
      '  let keys = 0;',
      '  for (const k in v) keys++;',
      '  if (keys === present) return true;',
      `  for (const k in v) if (v[k] !== undefined && !${known}.has(k)) ${unknownKey}`,
      '  return true;',
    );
    return lines.join('\n');
  }

  private memberLines(member: Member, counted: boolean): string[] {
    const key = JSON.stringify(member.key);
    const read = member.key in Object.prototype ? `hasOwn(v, ${key}) ? v[${key}] : undefined` : `v[${key}]`;
    const test = this.expression(member.shape, 'm', 'd + 1');
    if (!member.optional) return [`  m = ${read};`, `  if (m === undefined || !(${test})) return false;`];
    return [`  m = ${read};`, `  if (m !== undefined) { if (!(${test})) return false;${counted ? ' present++;' : ''} }`];
  }

  private recordBody(shape: Extract<Shape, { kind: 'record' }>): string {
    // for-in sees a plain object's own keys (and any enumerable key a polluted prototype adds, which
    // only makes the check stricter). An own `__proto__` key (JSON.parse makes those) is left to zod.
    return [
      '  if (!plain(v)) return false;',
      '  for (const k in v) {',
      `    if (k === "__proto__" || !(${this.expression(shape.key, 'k', 'd + 1')})) return false;`,
      `    const e = v[k];`,
      `    if (!(${this.expression(shape.value, 'e', 'd + 1')})) return false;`,
      '  }',
      '  return true;',
    ].join('\n');
  }

  private taggedBody(shape: Extract<Shape, { kind: 'tagged' }>): string {
    const key = JSON.stringify(shape.tag);
    const read = shape.tag in Object.prototype ? `hasOwn(v, ${key}) ? v[${key}] : undefined` : `v[${key}]`;
    const cases = [...shape.options].map(([tag, option]) => `    case ${this.literal(tag)}: return ${this.expression(option, 'v', 'd')};`);
    return ['  if (!plain(v)) return false;', `  switch (${read}) {`, ...cases, '    default: return false;', '  }'].join('\n');
  }
}

/**
 * The source back end of the quick check for `shape`. Throws where the runtime refuses generated
 * code; the caller probes that first.
 */
export function sourceCheck(shape: Shape, maxDepth?: number): Check {
  const writer = new SourceWriter(maxDepth);
  const source = writer.module(shape);
  // Generated from our own schema definitions only (see the module comment); used only where zod's probe allows it.
  return new Function('c', source)(writer.constants) as Check;
}
