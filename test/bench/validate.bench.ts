/**
 * Validation speed of a CRM manifest against the raw floor measured in the same run: a bare
 * `JSON.parse` of the same document's text (the target is validateManifest ≤ 2× that floor).
 * Run with `npm run bench -- test/bench/validate.bench.ts`; `test/bench/validate-speed.ts` prints
 * the ratios, in process and over HTTP.
 */
import { bench, describe } from 'vitest';
import { getExample, normalizeManifest, validateManifest } from 'cellgate';
import { crmManifest } from '../unit/contract/validate-fixtures.ts';

const options = { time: 3000, warmupIterations: 2000 };

const documents = {
  'crm-manifest example': getExample('crm-manifest'),
  'CRM test fixture (3 entities, 7 pages, capabilities)': crmManifest(),
};

for (const [name, manifest] of Object.entries(documents)) {
  if (!validateManifest(manifest).valid) throw new Error(`${name} must be valid`);
  const text = JSON.stringify(manifest);
  describe(name, () => {
    bench(
      'floor: JSON.parse(text)',
      () => {
        JSON.parse(text);
      },
      options,
    );
    bench(
      'validateManifest(m)',
      () => {
        validateManifest(manifest);
      },
      options,
    );
    bench(
      'normalizeManifest(m)',
      () => {
        normalizeManifest(manifest);
      },
      options,
    );
  });
}
