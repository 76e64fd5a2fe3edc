/**
 * Which two served majors an upgrade joins (docs/evolving-entities.md#majors-and-upgrades): the
 * entity key names the newest major defined with `from` (or `key@v<n>` that major), and the
 * older major must be served by the same API, since its table, codec and history stay readable.
 */
import { ConfigurationError } from '../../errors.ts';
import { majorVersion, upgradeLinkOf, type UpgradeLink } from '../../entity-document/index.ts';
import type { ServiceContext } from '../service-context.ts';

/** The older context, the newer one and their link. */
export interface UpgradePair {
  from: ServiceContext;
  to: ServiceContext;
  link: UpgradeLink;
}

/** Resolves `name` (`crm.invoice` or `crm.invoice@v2`) among `contexts`; throws a {@link ConfigurationError} naming what is missing. */
export function resolveUpgrade(contexts: readonly ServiceContext[], name: string): UpgradePair {
  const [key, pinned] = name.split('@v') as [string, string | undefined];
  const linked = contexts
    .filter((ctx) => ctx.entity.key === key && upgradeLinkOf(ctx.entity) !== undefined)
    .filter((ctx) => pinned === undefined || String(majorVersion(ctx.entity)) === pinned)
    .sort((a, b) => majorVersion(b.entity) - majorVersion(a.entity));
  const to = linked[0];
  if (to === undefined) {
    throw new ConfigurationError('upgrade', `${name} names no served major defined with { from, up } (defineEntity(v2Document, { from: v1, up })).`);
  }
  const link = upgradeLinkOf(to.entity)!;
  const major = majorVersion(link.from);
  const from = contexts.find((ctx) => ctx.entity.key === key && majorVersion(ctx.entity) === major);
  if (from === undefined) {
    throw new ConfigurationError(
      'upgrade',
      `${key}@v${major}, which ${key}@v${majorVersion(to.entity)} upgrades, is not served by this API: serve both majors.`,
    );
  }
  return { from, to, link };
}
