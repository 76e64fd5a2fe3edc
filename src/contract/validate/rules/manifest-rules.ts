/** Rules over the manifest as a whole: identity, spec contents, mount and app shell. */
import { CONTRACT_VERSION, SNAKE_CASE } from '../../schema/index.ts';
import { repeatedValues } from './helpers.ts';
import { rule } from './types.ts';

/** Manifest-level rules, in the order they run. */
export const manifestRules = [
  rule({ id: 'manifest.api-version', scope: 'manifest', description: `\`apiVersion\` must equal \`${CONTRACT_VERSION}\`.` }),
  rule({ id: 'manifest.kind', scope: 'manifest', description: '`kind` must equal `Cell`.' }),
  rule({
    id: 'manifest.metadata-key',
    scope: 'manifest',
    description: '`metadata.key` must be snake_case.',
    check: ({ manifest }, report) => {
      const { key } = manifest.metadata;
      if (!SNAKE_CASE.test(key)) report('metadata.key', `metadata.key "${key}" must be snake_case (e.g. "customer_portal")`);
    },
  }),
  rule({
    id: 'manifest.spec-content',
    scope: 'manifest',
    description: '`spec` must define at least one of entities, pages, navigation.',
    check: ({ manifest: { spec } }, report) => {
      if (spec.entities === undefined && spec.pages === undefined && spec.navigation === undefined) {
        report('spec', 'cell spec must define at least entities, pages, or navigation');
      }
    },
  }),
  rule({
    id: 'manifest.mount-path',
    scope: 'manifest',
    description: '`spec.mount.mountPath` must start with `/`.',
    check: ({ manifest }, report) => {
      if (!manifest.spec.mount.mountPath.startsWith('/')) report('spec.mount.mountPath', 'mountPath must start with "/"');
    },
  }),
  rule({
    id: 'manifest.landing-page',
    scope: 'manifest',
    description: '`spec.mount.landingPage` must reference a defined page key.',
    check: ({ manifest, index }, report) => {
      const { landingPage } = manifest.spec.mount;
      if (!index.pageKeys.has(landingPage)) {
        report('spec.mount.landingPage', `landingPage "${landingPage}" does not reference a valid page key`);
      }
    },
  }),
  rule({
    id: 'manifest.app-shell-regions',
    scope: 'manifest',
    description: 'App shell region keys are unique and exactly one enabled `main` region exists.',
    check: ({ manifest }, report) => {
      const regions = manifest.spec.appShell?.regions;
      if (regions === undefined) return;
      for (const key of repeatedValues(regions.map((region) => region.key))) {
        report('spec.appShell.regions', `region keys must be unique (duplicate: "${key}")`);
      }
      const mains = regions.filter((region) => region.key === 'main');
      if (mains.length !== 1) report('spec.appShell.regions', 'there must be exactly one "main" region');
      else if (!mains[0]?.enabled) report('spec.appShell.regions', '"main" region must be enabled');
    },
  }),
];
