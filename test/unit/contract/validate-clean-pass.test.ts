/**
 * The clean-document shortcut of the rule runner (`rules/clean-pass.ts`) changes nothing a caller
 * sees: over every example manifest and thousands of generated variants (valid and invalid, short
 * lists and lists long enough for the `Set` paths), `runRules` yields byte for byte the issues of
 * the plain rule-major runner, and the pass says "clean" exactly when that runner finds nothing.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getExample, listExamples, type CellManifest } from 'cellgate';
import { CellManifestSchema } from 'cellgate/schemas';
import { parseOptions } from '../../../src/contract/schema/messages.ts';
import { compileQuickCheck } from '../../../src/contract/schema/quick-check.ts';
import { isClean } from '../../../src/contract/validate/rules/clean-pass.ts';
import { allRules } from '../../../src/contract/validate/rules/index.ts';
import { manifestTargets, runEveryRule, runRules } from '../../../src/contract/validate/run-rules.ts';
import { crmManifest } from './validate-fixtures.ts';

// Test documents are plain JSON edited in place, so they are typed loosely on purpose.
type Doc = any;

const quick = compileQuickCheck(CellManifestSchema);

/** Compares both runners (and the pass) on `manifest`; answers whether the table found problems. */
function same(manifest: CellManifest): boolean {
  const expected = runEveryRule(allRules, manifestTargets(manifest));
  expect(JSON.stringify(runRules(allRules, manifestTargets(manifest)))).toBe(JSON.stringify(expected));
  expect(isClean(manifest)).toBe(expected.length === 0);
  return expected.length > 0;
}

/** Checks `doc` as both validation paths see it: zod's output, and the raw input when the compiled check proves it. */
function check(doc: Doc): 'structural' | 'clean' | 'problems' {
  const parsed = CellManifestSchema.safeParse(doc, parseOptions);
  if (!parsed.success) return 'structural';
  const problems = same(parsed.data);
  if (quick(doc)) expect(same(doc as CellManifest)).toBe(problems);
  return problems ? 'problems' : 'clean';
}

/** The CRM fixture with lists longer than the pairwise bound (fields, pages, relations, states, capabilities, roles). */
function longManifest(): Doc {
  const doc: Doc = crmManifest();
  const customer = doc.spec.entities.find((e: Doc) => e.key === 'customer');
  for (let i = 0; i < 40; i++) {
    customer.fields.push({ key: `extra_${i}`, name: `Extra ${i}`, type: 'string' });
    doc.spec.pages.push({ key: `report_${i}`, type: 'dashboard', title: `Report ${i}`, path: `/reports/${i}` });
    customer.lifecycle.states.push(`stage_${i}`);
    customer.lifecycle.transitions.push({ key: `to_stage_${i}`, from: customer.lifecycle.initial, to: `stage_${i}` });
    doc.spec.entities.push({ key: `thing_${i}`, name: `Thing ${i}`, pluralName: `Things ${i}`, fields: [{ key: 'label', name: 'Label', type: 'string' }] });
  }
  return doc;
}

/** The CRM fixture with the parts it lacks: an app shell and an entity validation block. */
function richManifest(): Doc {
  const doc: Doc = crmManifest();
  const region = (key: string) => ({ key, enabled: true });
  doc.spec.appShell = {
    key: 'shell',
    name: 'Shell',
    layout: { mode: 'sidebar-content' },
    regions: [region('main'), region('sidebar')],
    outlet: { type: 'page', region: 'main' },
  };
  doc.spec.entities[0].validation = {
    serverValidators: [
      {
        ruleId: 'unique_email',
        type: 'cross_entity',
        validatorRef: 'crm.uniqueEmail',
        messageKey: 'email.taken',
        clientSafe: false,
        async: true,
        blocking: true,
        severity: 'error',
      },
    ],
  };
  return doc;
}

/** Every path (array of keys) of a JSON document, the root excluded, with its value. */
function entriesOf(value: Doc, prefix: (string | number)[] = []): [(string | number)[], Doc][] {
  if (typeof value !== 'object' || value === null) return [];
  const entries = Array.isArray(value) ? value.map((item, index) => [index, item] as const) : Object.entries(value);
  return entries.flatMap(([key, child]) => [[[...prefix, key], child] as [(string | number)[], Doc], ...entriesOf(child, [...prefix, key])]);
}

type Mutation = { at: number; action: 'delete' | 'set' | 'copy'; value: number };

/** Values some rule cares about: reserved keys, dangling references, bad names and kinds. */
const TRICKY = ['id', 'createdAt', 'deleted_by', 'main', 'ghost', 'x', 'Bad-Key', 'owner_id', 'enum', 'object', 'count', 'sum', 'min', 'boolean', 'self'];

/**
 * Variants of `base`: a string set to another value the document uses under the same member
 * name (a key to another key, a page type to another type: duplicates and clashes) or to a
 * {@link TRICKY} value, a member deleted, or an item of a list copied into a list of the same
 * member name (repeats, clashes across entities, object fields nested deeper).
 */
function variants(base: () => Doc) {
  const entries = entriesOf(base());
  const byName = new Map<string | number, string[]>();
  for (const [path, value] of entries) {
    if (typeof value !== 'string') continue;
    const name = path[path.length - 1]!;
    byName.set(name, [...(byName.get(name) ?? []), value]);
  }
  const arrays = entries.filter(([, value]) => Array.isArray(value) && value.length > 0).map(([path]) => path);
  const valueAt = (doc: Doc, path: (string | number)[]): Doc => path.reduce((value, key) => value[key], doc);
  const sameName = (path: (string | number)[]) => arrays.filter((other) => other[other.length - 1] === path[path.length - 1]);
  const mutation = fc.record({
    at: fc.nat(),
    action: fc.constantFrom<Mutation['action']>('delete', 'set', 'set', 'copy'),
    value: fc.nat(),
  });
  return fc.array(mutation, { minLength: 1, maxLength: 3 }).map((mutations) => {
    const doc = base();
    for (const { at, action, value } of mutations) {
      try {
        const path = action === 'copy' ? arrays[at % arrays.length]! : entries[at % entries.length]![0];
        let parent = doc;
        for (const key of path.slice(0, -1)) parent = parent[key];
        const last = path[path.length - 1]!;
        if (action === 'delete') {
          if (Array.isArray(parent)) parent.splice(last as number, 1);
          else delete parent[last];
        } else if (action === 'set') {
          if (typeof parent[last] !== 'string') continue;
          const same = byName.get(last) ?? [];
          parent[last] = value % 4 === 0 ? TRICKY[(value >> 2) % TRICKY.length] : same[(value >> 2) % same.length];
        } else {
          const sources = sameName(path);
          const source = valueAt(doc, sources[value % sources.length]!);
          parent[last].push(structuredClone(source[(value >> 3) % source.length]));
        }
      } catch {
        // the path vanished through an earlier mutation
      }
    }
    return doc;
  });
}

describe('clean-document shortcut of the rule runner', () => {
  it('agrees with the rule-major runner on every example manifest', () => {
    const manifests = listExamples()
      .map(({ key }) => getExample(key) as Doc)
      .filter((doc) => doc?.kind === 'Cell');
    expect(manifests.length).toBeGreaterThanOrEqual(2);
    for (const doc of [...manifests, crmManifest(), longManifest(), richManifest()]) expect(check(doc)).toBe('clean');
  });

  it.each([
    ['the CRM fixture', crmManifest],
    ['the CRM fixture with an app shell and a validation block', richManifest],
  ])('agrees with the rule-major runner on every single edit of %s', (_name, base: () => Doc) => {
    const entries = entriesOf(base());
    const values = new Map<string | number, Set<string>>();
    for (const [path, value] of entries)
      if (typeof value === 'string') values.set(path[path.length - 1]!, (values.get(path[path.length - 1]!) ?? new Set()).add(value));
    const seen = { structural: 0, clean: 0, problems: 0 };
    const edit = (path: (string | number)[], change: (parent: Doc, last: string | number) => void) => {
      const doc = base();
      change(
        path.slice(0, -1).reduce((value, key) => value[key], doc),
        path[path.length - 1]!,
      );
      seen[check(doc)]++;
    };
    for (const [path, value] of entries) {
      const last = path[path.length - 1]!;
      edit(path, (parent) => (Array.isArray(parent) ? parent.splice(last as number, 1) : delete parent[last]));
      if (typeof value === 'boolean') edit(path, (parent) => (parent[last] = !value));
      if (typeof value === 'string') for (const other of [...(values.get(last) ?? []), ...TRICKY]) edit(path, (parent) => (parent[last] = other));
      if (Array.isArray(value)) {
        for (const [source, items] of entries) {
          if (!Array.isArray(items) || source[source.length - 1] !== last) continue;
          for (const item of items) edit(path, (parent) => parent[last].push(structuredClone(item)));
        }
      }
    }
    expect(seen.problems).toBeGreaterThan(500);
    expect(seen.clean).toBeGreaterThan(100);
  });

  for (const [name, base] of [
    ['the CRM fixture', crmManifest],
    ['the CRM fixture with long lists', longManifest],
  ] as const) {
    it(`agrees with the rule-major runner on generated variants of ${name}, issue for issue and in order`, () => {
      const seen = { structural: 0, clean: 0, problems: 0 };
      fc.assert(
        fc.property(variants(base), (doc) => {
          seen[check(doc)]++;
        }),
        { numRuns: 2000 },
      );
      // The comparison is not vacuous: many variants have semantic problems, some are still clean.
      expect(seen.problems).toBeGreaterThan(100);
      expect(seen.clean).toBeGreaterThan(50);
    });
  }
});

describe('rule table work', () => {
  /** A manifest whose one entity has `n` lifecycle transitions and a transition capability for each. */
  const transitionHeavy = (n: number): Doc => {
    const doc: Doc = crmManifest();
    const customer = doc.spec.entities.find((e: Doc) => e.key === 'customer');
    customer.lifecycle.transitions = Array.from({ length: n }, (_, i) => ({
      key: `move_${i}`,
      from: customer.lifecycle.initial,
      to: customer.lifecycle.states[1],
    }));
    customer.capabilities = Array.from({ length: n }, (_, i) => ({ key: `do_${i}`, type: 'transition', name: 'Do', transition: `move_${n - 1 - (i % 7)}` }));
    return doc;
  };
  /** Best of three runs of the whole rule table, in ms. */
  const tableTime = (doc: Doc): number => {
    let best = Number.POSITIVE_INFINITY;
    for (let run = 0; run < 3; run++) {
      const start = performance.now();
      runEveryRule(allRules, manifestTargets(doc));
      best = Math.min(best, performance.now() - start);
    }
    return best;
  };

  it('looks up transition capabilities in linear time (was one scan of the transitions per capability)', () => {
    const small = transitionHeavy(1000);
    const large = transitionHeavy(8000);
    tableTime(small); // warm-up
    // 8x the transitions and capabilities: ~8x the time when linear, ~64x when quadratic.
    expect(tableTime(large) / tableTime(small)).toBeLessThan(24);
  });
});

describe('the clean pass and the rule table', () => {
  // A rule added to the table but not mirrored by the pass would never run on documents the pass
  // calls clean; each check of the pass names the rule it mirrors, so a missing one shows here
  // (and in the new rule's own tests, which then find no problem).
  it('names every rule of the table that has a check', () => {
    const pass = readFileSync(new URL('../../../src/contract/validate/rules/clean-pass.ts', import.meta.url), 'utf8');
    const unnamed = allRules.filter((rule) => rule.check !== undefined && !pass.includes(rule.id)).map((rule) => rule.id);
    expect(unnamed).toEqual([]);
  });
});
