/**
 * The quick check as one closure per shape node: the back end for runtimes that refuse generated
 * code (Cloudflare Workers, a strict Content-Security-Policy, `z.config({ jitless: true })`).
 * Same answers as the generated function of `quick-check-source.ts`, slower.
 */
import type { Condition, Shape } from './quick-check-shape.ts';

/** A compiled check: `true` proves the value matches; `false` means "not proven". */
type Check = (value: unknown) => boolean;

const never: Check = () => false;
const always: Check = () => true;

/** A plain JSON object: not null, not an array, and no prototype but Object's (or none). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** One condition as a test of a string (length and pattern), a number (its value) or an array (its length). */
function conditionTest(condition: Condition): (value: unknown) => boolean {
  const size = (value: unknown): number => (typeof value === 'number' ? value : (value as string | unknown[]).length);
  switch (condition.kind) {
    case 'atLeast':
      return (value) => size(value) >= condition.value;
    case 'atMost':
      return (value) => size(value) <= condition.value;
    case 'exactly':
      return (value) => size(value) === condition.value;
    case 'above':
      return (value) => size(value) > condition.value;
    case 'below':
      return (value) => size(value) < condition.value;
    case 'safeInteger':
      return (value) => Number.isSafeInteger(value);
    case 'pattern':
      return (value) => condition.pattern.test(value as string);
  }
}

/** All conditions as one test. */
function conditionsTest(conditions: readonly Condition[]): ((value: unknown) => boolean) | undefined {
  if (conditions.length === 0) return undefined;
  const tests = conditions.map(conditionTest);
  if (tests.length === 1) return tests[0];
  return (value) => {
    for (const test of tests) if (!test(value)) return false;
    return true;
  };
}

/** Builds closures, one per shared node, closing cycles through forwarders. */
class ClosureBuilder {
  private readonly memo = new Map<Shape, Check>();

  build(shape: Shape): Check {
    const known = this.memo.get(shape);
    if (known) return known;
    let built: Check = never;
    this.memo.set(shape, (value) => built(value));
    built = this.node(shape);
    this.memo.set(shape, built);
    return built;
  }

  private node(shape: Shape): Check {
    switch (shape.kind) {
      case 'never':
        return never;
      case 'unknown':
        return always;
      case 'string': {
        const test = conditionsTest(shape.conditions);
        return test ? (value) => typeof value === 'string' && test(value) : (value) => typeof value === 'string';
      }
      case 'number': {
        const test = conditionsTest(shape.conditions);
        return (value) => typeof value === 'number' && Number.isFinite(value) && (test === undefined || test(value));
      }
      case 'boolean':
        return (value) => typeof value === 'boolean';
      case 'oneOf': {
        const values = new Set(shape.values);
        return (value) => values.has(value);
      }
      case 'optional': {
        const inner = this.build(shape.inner);
        return (value) => value === undefined || inner(value);
      }
      case 'nullable': {
        const inner = this.build(shape.inner);
        return (value) => value === null || inner(value);
      }
      case 'array': {
        const test = conditionsTest(shape.conditions);
        const element = this.build(shape.element);
        return (value) => {
          if (!Array.isArray(value) || (test !== undefined && !test(value))) return false;
          for (let i = 0; i < value.length; i++) if (!element(value[i])) return false;
          return true;
        };
      }
      case 'object':
        return this.object(shape);
      case 'record': {
        const key = this.build(shape.key);
        const item = this.build(shape.value);
        return (value) => {
          if (!isPlainObject(value)) return false;
          for (const name of Object.keys(value)) {
            // An own `__proto__` key (JSON.parse makes those) is left to zod.
            if (name === '__proto__' || !key(name) || !item(value[name])) return false;
          }
          return true;
        };
      }
      case 'union': {
        const options = shape.options.map((option) => this.build(option));
        return (value) => options.some((option) => option(value));
      }
      case 'tagged': {
        const options = new Map([...shape.options].map(([tag, option]) => [tag, this.build(option)]));
        const { tag } = shape;
        return (value) => isPlainObject(value) && (options.get(value[tag]) ?? never)(value);
      }
    }
  }

  private object(shape: Extract<Shape, { kind: 'object' }>): Check {
    const { strict, members } = shape;
    const indexOf = new Map(members.map((member, i) => [member.key, i]));
    // Parallel arrays: this loop is the hot path of every check.
    const optional = members.map((member) => member.optional);
    const checks = members.map((member) => this.build(member.shape));
    const required = optional.filter((isOptional) => !isOptional).length;
    // One pass over the value's own keys: `value[key]` of the key a for-in just produced is a fast
    // load, where reading each schema key by name would be a generic keyed lookup per member.
    // (A plain object inherits nothing enumerable, so for-in sees exactly its own keys.)
    return (value) => {
      if (!isPlainObject(value)) return false;
      let present = 0;
      for (const key in value) {
        const i = indexOf.get(key);
        if (i === undefined) {
          if (strict) return false;
          continue;
        }
        const member = value[key];
        if (member === undefined) continue;
        if (!checks[i]!(member)) return false;
        if (!optional[i]) present++;
      }
      return present === required;
    };
  }
}

/** The closure back end of the quick check for `shape`. */
export function closureCheck(shape: Shape): Check {
  return new ClosureBuilder().build(shape);
}
