import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CellgateError } from 'cellgate';
import { jsonNestingDepth, parseClientJson, valueNestingDepth } from '../../../src/http/json.ts';
import { MAX_JSON_DEPTH } from '../../../src/limits.ts';

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('JSON nesting bound', () => {
  it('accepts a body exactly at the limit and refuses one level deeper with 400 BAD_REQUEST', () => {
    expect(parseClientJson(nested(MAX_JSON_DEPTH))).toBeInstanceOf(Array);
    const refusal = (() => {
      try {
        parseClientJson(nested(MAX_JSON_DEPTH + 1));
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(CellgateError);
    expect((refusal as CellgateError).status).toBe(400);
    expect((refusal as CellgateError).details).toEqual({ maxDepth: MAX_JSON_DEPTH });
  });

  it('refuses 100,000 levels without overflowing the stack', () => {
    expect(() => parseClientJson(`{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`)).toThrow(/nested deeper/);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ s: `\\"${'['.repeat(500)}` });
    expect(jsonNestingDepth(text)).toBe(1);
    expect(parseClientJson(text)).toEqual(JSON.parse(text));
  });

  it('agrees with the depth of the parsed value for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 12 }), (value) => {
        const text = JSON.stringify(value);
        expect(jsonNestingDepth(text, 1_000)).toBe(valueNestingDepth(value, 1_000));
      }),
      { numRuns: 500 },
    );
  });

  it('ends a string at the first quote after an even run of backslashes (strings built of \\, ", brackets)', () => {
    const unit = fc.constantFrom('\\', '"', '[', ']', '{', '}', 'a');
    fc.assert(
      fc.property(fc.array(fc.string({ unit, maxLength: 12 }), { maxLength: 4 }), fc.nat(8), (strings, levels) => {
        let value: unknown = strings;
        for (let i = 0; i < levels; i++) value = [value, { s: strings[0] ?? '' }];
        const text = JSON.stringify(value);
        expect(jsonNestingDepth(text, 1_000)).toBe(valueNestingDepth(value, 1_000));
      }),
      { numRuns: 500 },
    );
    expect(jsonNestingDepth('["\\\\",[[]]]')).toBe(3); // a string ending in an escaped backslash
    expect(jsonNestingDepth('["\\"[[[",[]]')).toBe(2); // an escaped quote does not end the string
    expect(jsonNestingDepth('["[[[')).toBe(1); // an unterminated string hides the rest
  });

  it('reports malformed JSON as 400 with the parser message', () => {
    expect(() => parseClientJson('{"a":')).toThrow(/not valid JSON/);
  });
});
