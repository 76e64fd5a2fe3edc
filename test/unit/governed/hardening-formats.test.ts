/**
 * The format checks of governed fields (issue 12): one date-time reading for bodies and filters,
 * independent of the process time zone, refusing impossible calendar values; e-mail, URL and UUID
 * checks that cap the length first and stay linear.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { defineEntity, type EntityDocumentInput } from 'cellgate';
import { createListQueryParser } from '../../../src/governed/list-query.ts';
import { isEmail, isUrl, isUuid, jsonValueProblem, normalizeDateTime } from '../../../src/governed/codec.ts';
import { MAX_EMAIL_LENGTH, MAX_URL_LENGTH } from '../../../src/limits.ts';

const invoice = defineEntity(
  JSON.parse(readFileSync(new URL('../../../examples/entities/invoice.entity.json', import.meta.url), 'utf8')) as EntityDocumentInput,
);
const parse = createListQueryParser(invoice);
const initialTz = process.env.TZ;
afterEach(() => {
  if (initialTz === undefined) delete process.env.TZ;
  else process.env.TZ = initialTz;
});

describe.each(['UTC', 'America/New_York', 'Asia/Kolkata'])('normalizeDateTime under TZ=%s', (zone) => {
  it('reads RFC 3339 and plain dates, zone-less as UTC, the same way for filters', () => {
    process.env.TZ = zone;
    const cases: Array<[string, string]> = [
      ['2026-03-01', '2026-03-01T00:00:00.000Z'],
      ['2026-03-01T02:00:00', '2026-03-01T02:00:00.000Z'],
      ['2026-03-01t02:00:00z', '2026-03-01T02:00:00.000Z'],
      ['2026-03-01 02:00:00.123456789+05:30', '2026-02-28T20:30:00.123Z'],
      ['2028-02-29T23:59:59-01:00', '2028-03-01T00:59:59.000Z'],
      ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
      ['0050-06-15T00:00:00Z', '0050-06-15T00:00:00.000Z'],
      ['9999-12-31T23:59:59Z', '9999-12-31T23:59:59.000Z'],
    ];
    for (const [input, expected] of cases) {
      expect(normalizeDateTime(input), input).toBe(expected);
      expect(parse(new URLSearchParams({ 'dueDate[after]': input })).filters?.[0]?.value, input).toBe(expected);
    }
  });

  it('refuses impossible or malformed values instead of rolling them over', () => {
    process.env.TZ = zone;
    for (const input of [
      '2026-02-30',
      '2026-02-29T00:00:00Z',
      '1900-02-29',
      '2026-04-31T00:00:00Z',
      '2026-00-10',
      '2026-13-01',
      '2026-01-00',
      '2026-01-01T24:00:00Z',
      '2026-01-01T23:60:00Z',
      '2026-01-01T23:59:60Z',
      '2026-01-01T10:00:00+24:00',
      '2026-01-01T10:00:00+01:60',
      '2026-01-01T10:00Z',
      '2026-01-01T10:00:00+0100',
      '2026-1-01',
      ' 2026-01-01',
      '2026-01-01T10:00:00.Z',
      '9999-12-31T23:00:00-02:00',
      'yesterday',
      '',
    ]) {
      expect(normalizeDateTime(input), input).toBeNull();
      expect(() => parse(new URLSearchParams({ 'dueDate[after]': input })), input).toThrow();
    }
  });
});

describe('format checks', () => {
  it('caps e-mail at 254 characters and needs one @, no whitespace and a dot inside the domain', () => {
    expect(isEmail('a@b.co')).toBe(true);
    expect(isEmail(`${'a'.repeat(64)}@${'b'.repeat(MAX_EMAIL_LENGTH - 69)}.com`)).toBe(true);
    expect(isEmail(`${'a'.repeat(65)}@${'b'.repeat(MAX_EMAIL_LENGTH - 69)}.com`)).toBe(false);
    for (const bad of ['', 'a', 'a@', '@b.c', 'a@b', 'a@b.', 'a@.b', 'a@b@c.d', 'a b@c.d', 'a@b.c ', '\ta@b.c']) expect(isEmail(bad), bad).toBe(false);
  });

  it('agrees with the former pattern on every short input, and stays linear on long ones', () => {
    const former = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '@', '.', ' ', '\n', 'é'), maxLength: 30 }), (value) => {
        expect(isEmail(value)).toBe(former.test(value));
      }),
      { numRuns: 2000 },
    );
    const started = performance.now();
    for (const evil of [`a@${'.'.repeat(1_000_000)} `, `${'a'.repeat(1_000_000)}@`, `a@${'a.'.repeat(500_000)}`]) expect(isEmail(evil)).toBe(false);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('caps URLs and UUIDs before parsing them', () => {
    expect(isUrl('https://example.com/a?b=c')).toBe(true);
    expect(isUrl(`https://example.com/${'a'.repeat(MAX_URL_LENGTH - 20)}`)).toBe(true);
    expect(isUrl(`https://example.com/${'a'.repeat(MAX_URL_LENGTH)}`)).toBe(false);
    expect(isUrl('not a url')).toBe(false);
    expect(isUuid('0C4E7D21-5B8A-4F6E-9D3C-1A2B3C4D5E6F')).toBe(true);
    expect(isUuid(`0C4E7D21-5B8A-4F6E-9D3C-1A2B3C4D5E6F${'0'.repeat(1_000_000)}`)).toBe(false);
  });

  it('finds non-finite numbers, unstorable text and excess depth anywhere in a value, iteratively', () => {
    expect(jsonValueProblem({ a: [1, { b: 'x' }] })).toBeNull();
    expect(jsonValueProblem({ a: [1, { b: Number.POSITIVE_INFINITY }] })).toBe('Numbers must be finite');
    expect(jsonValueProblem({ a: [{ b: Number.NaN }] })).toBe('Numbers must be finite');
    expect(jsonValueProblem({ 'k\u0000': 1 })).toMatch(/NUL/);
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(jsonValueProblem(deep)).toMatch(/nested deeper than 64/);
  });
});
