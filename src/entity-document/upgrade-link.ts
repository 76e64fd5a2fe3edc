/**
 * The link between two majors of one entity (docs/evolving-entities.md#majors-and-upgrades,
 * docs/decisions/B40.md): `defineEntity(v2, { from: v1, up, down? })` records which major a
 * document upgrades and the functions that carry a record across. The documents stay plain frozen
 * JSON (they are also served and stored as JSON), so the link is kept beside them, by identity.
 */
import { ConfigurationError } from '../errors.ts';
import type { EntityDefinitionDocument } from './schema.ts';
import type { EntityRecordOf, EntityTypes } from './record-type.ts';

/** The general record a link's functions read and write: business fields by camelCase name. */
export type UpgradeRecord = { [field: string]: unknown };

/**
 * How a major is reached from the previous one: `from` is the older major's definition, `up`
 * turns one of its records (business fields, camelCase, as the API answers them) into the newer
 * major's record, `down` (optional) the way back, used to answer clients pinned to the older major.
 * Both must be pure and deterministic: an online upgrade may call `up` on a record more than once.
 */
export interface UpgradeFrom<From, To extends EntityTypes> {
  /** The older major (`defineEntity` result), same `key`, lower major. */
  readonly from: From;
  /** The newer record of an older one; throw to refuse a record (listed by a dry run). */
  up(record: EntityRecordOf<From>): To['record'];
  /** The older record of a newer one (clients pinned to the older major read through it). */
  down?(record: To['record']): EntityRecordOf<From>;
}

/** A link as stored: general records (the typed functions are called with what storage holds). */
export interface UpgradeLink {
  readonly from: EntityDefinitionDocument;
  readonly up: (record: UpgradeRecord) => UpgradeRecord;
  readonly down?: (record: UpgradeRecord) => UpgradeRecord;
}

// One map per process, not per module instance: a configuration file loaded by the CLI (tsx's
// isolated loader) or a second copy of the package defines its entities with its own instance
// of this module, and the link must still be found by the instance that runs the upgrade.
const REGISTRY = Symbol.for('cellgate.upgradeLinks');
const holder = globalThis as { [REGISTRY]?: WeakMap<EntityDefinitionDocument, UpgradeLink> };
const links = (holder[REGISTRY] ??= new WeakMap<EntityDefinitionDocument, UpgradeLink>());

const majorOf = (document: Pick<EntityDefinitionDocument, 'version'>) => Number.parseInt(document.version, 10);

/**
 * Records `link` for `to`, checked: same key, a lower major, functions where functions belong.
 * Throws a {@link ConfigurationError} naming the option.
 */
export function linkUpgrade(to: EntityDefinitionDocument, link: { from: unknown; up: unknown; down?: unknown }): void {
  const from = link.from as EntityDefinitionDocument | undefined;
  if (from === null || typeof from !== 'object' || typeof from.key !== 'string' || typeof from.version !== 'string') {
    throw new ConfigurationError('upgrade.from', 'must be the older major, a defineEntity result');
  }
  if (from.key !== to.key) throw new ConfigurationError('upgrade.from', `is ${from.key}, not ${to.key}: an upgrade links two majors of one entity`);
  if (majorOf(from) >= majorOf(to)) {
    throw new ConfigurationError('upgrade.from', `is v${majorOf(from)}, not a major below v${majorOf(to)} (bump the major of the newer document)`);
  }
  if (typeof link.up !== 'function') throw new ConfigurationError('upgrade.up', 'must be a function from the older record to the newer one');
  if (link.down !== undefined && typeof link.down !== 'function')
    throw new ConfigurationError('upgrade.down', 'must be a function from the newer record to the older one');
  links.set(to, {
    from,
    up: link.up as UpgradeLink['up'],
    ...(link.down === undefined ? {} : { down: link.down as NonNullable<UpgradeLink['down']> }),
  });
}

/** The upgrade link of a major (`undefined` for a major defined without `from`). */
export const upgradeLinkOf = (entity: EntityDefinitionDocument): UpgradeLink | undefined => links.get(entity);
