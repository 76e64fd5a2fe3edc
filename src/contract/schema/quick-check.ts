// biome-ignore-all lint/suspicious/noExplicitAny: reads zod's untyped internal definitions (`_zod.def`), whose shape differs per schema kind
/**
 * A fast yes-or-"ask zod" check compiled from a zod schema's own definition, for the hot path of
 * validation: most documents sent to a validator are valid, and proving that needs no issue
 * objects, no paths, no output copy. `true` means zod would accept the value (the validator then
 * skips the zod parse); `false` means "not proven": zod runs as before and produces every message,
 * so error lists stay exactly zod's.
 *
 * zod stays the single source of the shape: the check is built from the schema definitions at first
 * use. Anything it does not model (a refinement, a transform, an unknown check) compiles to "not
 * proven", which costs speed, never correctness. Only plain JSON data is proven (plain objects,
 * arrays, strings, finite numbers, booleans, null).
 */
import type { z } from 'zod';

/** A compiled check. */
export type QuickCheck = (value: unknown) => boolean;

type Def = Record<string, any>;

const never: QuickCheck = () => false;
const noChecks = (): boolean => true;
const always: QuickCheck = () => true;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** The size and format checks of a string, number or array; `undefined` if one is not modelled. */
function compileChecks(checks: readonly any[], size: (value: any) => number): ((value: any) => boolean) | undefined {
  const tests: Array<(value: any) => boolean> = [];
  for (const check of checks) {
    const def: Def = check._zod.def;
    switch (def.check) {
      case 'min_length':
        tests.push((value) => size(value) >= def.minimum);
        break;
      case 'max_length':
        tests.push((value) => size(value) <= def.maximum);
        break;
      case 'length_equals':
        tests.push((value) => size(value) === def.length);
        break;
      case 'greater_than':
        tests.push(def.inclusive ? (value) => value >= def.value : (value) => value > def.value);
        break;
      case 'less_than':
        tests.push(def.inclusive ? (value) => value <= def.value : (value) => value < def.value);
        break;
      case 'number_format':
        if (def.format !== 'safeint') return undefined;
        tests.push((value) => Number.isSafeInteger(value));
        break;
      case 'string_format': {
        if (def.format !== 'regex' || !(def.pattern instanceof RegExp)) return undefined;
        const pattern = new RegExp(def.pattern.source, def.pattern.flags.replace(/[gy]/g, ''));
        tests.push((value) => pattern.test(value));
        break;
      }
      default:
        return undefined;
    }
  }
  if (tests.length === 0) return noChecks;
  if (tests.length === 1) return tests[0];
  return (value) => {
    for (const test of tests) if (!test(value)) return false;
    return true;
  };
}

/** Compiles schemas, closing reference cycles (recursive schemas) through a memo of forwarders. */
class Compiler {
  private readonly memo = new Map<unknown, QuickCheck>();

  compile(schema: z.ZodType): QuickCheck {
    const known = this.memo.get(schema);
    if (known) return known;
    let compiled: QuickCheck = never;
    this.memo.set(schema, (value) => compiled(value));
    compiled = this.build(schema);
    this.memo.set(schema, compiled);
    return compiled;
  }

  private build(schema: z.ZodType): QuickCheck {
    const def = schema._zod.def as Def;
    // A type that is itself a check (z.int(), z.email()) runs as its own first check.
    const ownChecks: any[] = [...(def.check === undefined ? [] : [schema]), ...(def.checks ?? [])];
    switch (def.type) {
      case 'string': {
        const checks = compileChecks(ownChecks, (value: string) => value.length);
        if (checks === noChecks) return (value) => typeof value === 'string';
        return checks ? (value) => typeof value === 'string' && checks(value) : never;
      }
      case 'number': {
        const checks = compileChecks(ownChecks, (value: number) => value);
        return checks ? (value) => typeof value === 'number' && Number.isFinite(value) && checks(value) : never;
      }
      case 'boolean':
        return ownChecks.length === 0 ? (value) => typeof value === 'boolean' : never;
      case 'unknown':
        return always;
      case 'literal': {
        const values = new Set<unknown>(def.values);
        return (value) => values.has(value);
      }
      case 'enum': {
        const values = new Set<unknown>(Object.values(def.entries));
        return (value) => values.has(value);
      }
      case 'optional':
      case 'default': {
        const inner = this.compile(def.innerType);
        return (value) => value === undefined || inner(value);
      }
      case 'nullable': {
        const inner = this.compile(def.innerType);
        return (value) => value === null || inner(value);
      }
      case 'array':
        return this.array(def, ownChecks);
      case 'object':
        return ownChecks.length === 0 ? this.object(def) : never;
      case 'record':
        return ownChecks.length === 0 ? this.record(def) : never;
      case 'union':
        return ownChecks.length === 0 ? this.union(def) : never;
      default:
        return never;
    }
  }

  private array(def: Def, checks: readonly any[]): QuickCheck {
    const size = compileChecks(checks, (value: unknown[]) => value.length);
    if (!size) return never;
    const element = this.compile(def.element);
    return (value) => {
      if (!Array.isArray(value) || !size(value)) return false;
      for (let i = 0; i < value.length; i++) if (!element(value[i])) return false;
      return true;
    };
  }

  private object(def: Def): QuickCheck {
    const catchall = def.catchall?._zod.def.type as string | undefined;
    // No catchall: unknown keys are stripped (accepted); `never`: refused; anything else is not modelled.
    if (catchall !== undefined && catchall !== 'never') return never;
    const strict = catchall === 'never';
    const shape = def.shape as Record<string, z.ZodType>;
    const keys = Object.keys(shape);
    const indexOf = new Map(keys.map((key, i) => [key, i]));
    // Parallel arrays and optional members unwrapped here: this loop is the hot path of every check.
    const optional = keys.map((key) => ['optional', 'default'].includes((shape[key]!._zod.def as Def).type));
    const checks = keys.map((key, i) => this.compile(optional[i] ? (shape[key]!._zod.def as Def).innerType : shape[key]!));
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

  private record(def: Def): QuickCheck {
    const key = this.compile(def.keyType);
    const item = this.compile(def.valueType);
    return (value) => {
      if (!isPlainObject(value)) return false;
      for (const name of Object.keys(value)) {
        // An own `__proto__` key (JSON.parse makes those) is left to zod.
        if (name === '__proto__' || !key(name) || !item(value[name])) return false;
      }
      return true;
    };
  }

  private union(def: Def): QuickCheck {
    const options: z.ZodType[] = def.options;
    const tag = def.discriminator as string | undefined;
    if (tag === undefined) {
      const checks = options.map((option) => this.compile(option));
      return (value) => checks.some((check) => check(value));
    }
    const byTag = new Map<unknown, QuickCheck>();
    for (const option of options) {
      const tagDef = ((option._zod.def as Def).shape?.[tag] as z.ZodType | undefined)?._zod.def as Def | undefined;
      if (tagDef?.type !== 'literal') return never;
      const check = this.compile(option);
      for (const literal of tagDef.values as unknown[]) if (!byTag.has(literal)) byTag.set(literal, check);
    }
    return (value) => isPlainObject(value) && (byTag.get(value[tag]) ?? never)(value);
  }
}

/**
 * Compiles a zod schema into a {@link QuickCheck}. The value must already be within the document
 * bounds (the check recurses once per level of nesting).
 *
 * @example
 * const quick = compileQuickCheck(CellManifestSchema);
 * if (!quick(doc)) CellManifestSchema.safeParse(doc); // zod gives the messages
 */
export function compileQuickCheck(schema: z.ZodType): QuickCheck {
  return new Compiler().compile(schema);
}
