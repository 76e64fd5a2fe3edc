/**
 * The root entry `cellgate` stays small (docs/decisions/B39.md): the factories, errors and
 * functions an app calls. Its zod schemas are in `cellgate/schemas`, what adapters need in
 * `cellgate/adapter-kit`, helpers are internal.
 *
 * To change the list on purpose: add or remove the export in src/index.ts, then edit ROOT_EXPORTS
 * below in the same commit, and say in the commit message why an app needs the name at the root
 * (docs/contributing.md, "What belongs at the root"). A schema goes to src/schemas/index.ts instead.
 */
import { describe, expect, it } from 'vitest';
import * as root from 'cellgate';
import * as schemas from 'cellgate/schemas';

/** The runtime names of the root entry, sorted. */
const ROOT_EXPORTS = [
  'BusinessRuleError',
  'CellgateError',
  'ConfigurationError',
  'LEAF_FORMAT',
  'MigrationRefusedError',
  'VerifyLogError',
  'checkpointBody',
  'composeHandlers',
  'consistencyProofOf',
  'createCheckpoints',
  'createContractHandler',
  'createFetchHandler',
  'createGovernedApi',
  'createGovernedResource',
  'createGovernedService',
  'createMetricsRegistry',
  'createPrimitiveRegistry',
  'createWebhookDispatcher',
  'defineConfig',
  'defineEntity',
  'eraseRecord',
  'explainErrors',
  'exportLogNdjson',
  'generateNoteKey',
  'generateWebhookSecret',
  'getExample',
  'inclusionProofOf',
  'leafData',
  'leafHash',
  'listExamples',
  'loadEntity',
  'memoryStorage',
  'ndjsonLogSource',
  'nodeHash',
  'normalizeManifest',
  'noteSignedBy',
  'noteSigner',
  'noteVerifier',
  'parseCheckpoint',
  'parseNote',
  'proofBundleOf',
  'purgeHistory',
  'purgeHistoryAsOperator',
  'recommend',
  'rulesFor',
  'signDevToken',
  'signNote',
  'stderrJsonLogger',
  'suggestPages',
  'suggestRelations',
  'toStorageModel',
  'validateEntity',
  'validateEntityDocument',
  'validateManifest',
  'validatePage',
  'verifierKeyOf',
  'verifyConsistency',
  'verifyInclusion',
  'verifyLog',
  'verifyProofBundle',
];

describe('the root entry', () => {
  it('exports exactly the pinned runtime names', () => {
    expect(Object.keys(root).sort()).toEqual(ROOT_EXPORTS);
  });

  it('exports no zod schema: those are in cellgate/schemas', () => {
    const zodLike = Object.entries(root).filter(([, value]) => typeof (value as { safeParse?: unknown } | null)?.safeParse === 'function');
    expect(zodLike.map(([name]) => name)).toEqual([]);
    expect(Object.keys(schemas)).toEqual(expect.arrayContaining(['CellManifestSchema', 'EntityDocumentSchema', 'TokenClaimsSchema']));
  });

  it('cellgate/schemas holds one name per schema (no aliases)', () => {
    const byValue = new Map<unknown, string[]>();
    for (const [name, value] of Object.entries(schemas)) {
      if (typeof (value as { safeParse?: unknown } | null)?.safeParse !== 'function') continue;
      byValue.set(value, [...(byValue.get(value) ?? []), name]);
    }
    expect([...byValue.values()].filter((names) => names.length > 1)).toEqual([]);
  });
});
