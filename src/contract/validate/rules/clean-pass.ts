/**
 * A shortcut for the common case: one pass over a whole manifest that answers whether ANY rule of
 * the table would report a problem, without building paths, messages or subjects.
 *
 * The rule table stays the description of the rules and the only producer of problems: when this
 * pass finds anything (or cannot be sure), the table runs in its own order and reports. Nearly
 * every document a service sees is valid, and there the table's cost is not its checks but its
 * ~40 separate walks over the same document (each rule function, its lookups and its small lists
 * loaded again for every request in a server whose caches the network stack keeps evicting).
 *
 * Each check below names the rule it mirrors. A check may be stricter than its rule (a false
 * "not clean" only costs the table's run) but never laxer: a test compares this pass with the
 * table over every example and many generated variants.
 */
import {
  SNAKE_CASE,
  type CapabilityDefinition,
  type CellManifest,
  type EntityDefinition,
  type FieldDefinition,
  type NavigationPageItem,
  type PageDefinition,
} from '../../schema/index.ts';
import { MAX_OBJECT_DEPTH } from './field-rules.ts';
import { BASE_FIELD_KEYS, PAIRWISE_MAX, type Keys, hasKey, hasRepeats, keysOf, repeatsMember } from './helpers.ts';
import { flatten } from './navigation-rules.ts';
import { entityRequired, sharesEntityAndType } from './page-rules.ts';

/** True only when no rule of the whole table reports anything for `manifest` (a parsed, structurally valid document). */
export function isClean(manifest: CellManifest): boolean {
  const { spec } = manifest;
  const pages = spec.pages ?? [];
  const entities = spec.entities ?? [];
  const pageKeys = keysOf(pages);
  const entityKeys = keysOf(entities);
  return (
    manifestClean(manifest, pageKeys) &&
    pagesClean(manifest, entityKeys) &&
    navigationClean(manifest, pageKeys) &&
    !repeatsMember(entities, 'key') && // entity.unique-keys
    entitiesClean(entities, entityKeys) &&
    rolesClean(manifest)
  );
}

/** The entity group, entity by entity. */
function entitiesClean(entities: readonly EntityDefinition[], entityKeys: Keys): boolean {
  for (const entity of entities) if (!entityClean(entity, entityKeys)) return false;
  return true;
}

/** The manifest rules. */
function manifestClean({ metadata, spec }: CellManifest, pageKeys: Keys): boolean {
  if (!SNAKE_CASE.test(metadata.key)) return false; // manifest.metadata-key
  if (spec.entities === undefined && spec.pages === undefined && spec.navigation === undefined) return false; // manifest.spec-content
  if (!spec.mount.mountPath.startsWith('/') || !hasKey(pageKeys, spec.mount.landingPage)) return false; // manifest.mount-path, manifest.landing-page
  const regions = spec.appShell?.regions; // manifest.app-shell-regions
  if (regions === undefined) return true;
  const mains = regions.filter((region) => region.key === 'main');
  return !repeatsMember(regions, 'key') && mains.length === 1 && Boolean(mains[0]?.enabled);
}

/** The page rules. */
function pagesClean({ spec }: CellManifest, entityKeys: Keys): boolean {
  const pages = spec.pages ?? [];
  // page.unique-keys, page.unique-paths, page.one-per-entity-type
  if (pages.length > PAIRWISE_MAX ? repeatsMember(pages, 'key') || repeatsMember(pages, 'path') || sharesEntityAndType(pages) : pagesRepeat(pages))
    return false;
  for (const page of pages) {
    const required = entityRequired.get(page.type);
    if (page.entity === undefined ? required === true : required === false) return false; // page.entity-required, page.entity-forbidden
    // page.entity-exists
    if (page.entity !== undefined && !hasKey(entityKeys, page.entity)) return false;
    const context = page.dataContext?.entityKey;
    if (context !== undefined && !hasKey(entityKeys, context)) return false;
    const providers = page.dataProviders;
    if (providers !== undefined) for (const provider of providers) if (!hasKey(entityKeys, provider.entityKey)) return false;
  }
  return true;
}

/** In a short page list, whether two pages share a key, a path, or an entity and a type: one pairwise walk for three rules. */
function pagesRepeat(pages: readonly PageDefinition[]): boolean {
  for (let i = 1; i < pages.length; i++) {
    const { key, path, entity, type } = pages[i]!;
    for (let j = 0; j < i; j++) {
      const other = pages[j]!;
      if (other.key === key || other.path === path || (entity !== undefined && other.entity === entity && other.type === type)) return true;
    }
  }
  return false;
}

/** The navigation rules. */
function navigationClean({ spec }: CellManifest, pageKeys: Keys): boolean {
  const items = spec.navigation?.items;
  if (items === undefined) return true;
  const all = flatten(items);
  if (all.length > PAIRWISE_MAX) {
    const linked = all.filter((item): item is NavigationPageItem => item.type === 'page'); // as pageItems, from the one walk
    for (const item of linked) if (!hasKey(pageKeys, item.pageKey)) return false; // navigation.page-exists
    return !repeatsMember(all, 'key') && !repeatsMember(linked, 'pageKey'); // navigation.unique-keys, navigation.page-once
  }
  // The same three rules in one pairwise walk of a short list.
  for (let i = 0; i < all.length; i++) {
    const item = all[i]!;
    const page = item.type === 'page' ? item.pageKey : undefined;
    if (page !== undefined && !hasKey(pageKeys, page)) return false; // navigation.page-exists
    for (let j = 0; j < i; j++) {
      const other = all[j]!;
      if (other.key === item.key) return false; // navigation.unique-keys
      if (page !== undefined && other.type === 'page' && other.pageKey === page) return false; // navigation.page-once
    }
  }
  return true;
}

/** The entity group: fields, relations, computed fields, lifecycle, events, policies, capabilities. */
function entityClean(entity: EntityDefinition, entityKeys: Keys): boolean {
  const fieldKeys = keysOf(entity.fields);
  const relations = entity.relations ?? [];
  const relationKeys = keysOf(relations);
  return (
    fieldsClean(entity.fields, 1) &&
    relationsClean(relations, fieldKeys, entityKeys) &&
    computedClean(entity, fieldKeys, relationKeys) &&
    lifecycleClean(entity, fieldKeys) &&
    capabilitiesClean(entity, fieldKeys, entityKeys)
  );
}

/** The field rules, over one sibling list and, recursively, the fields of its object fields (`depth` 1 at the top). */
function fieldsClean(fields: readonly FieldDefinition[], depth: number): boolean {
  if (repeatsMember(fields, 'key')) return false; // field.unique-keys
  for (const field of fields) {
    if (field.type === 'enum' && (field.enumValues === undefined || field.enumValues.length === 0)) return false; // field.enum-values
    if (field.type === 'object' && depth >= MAX_OBJECT_DEPTH) return false; // field.max-depth
    if (BASE_FIELD_KEYS.has(field.key)) return false; // field.not-base
    if (field.fields && !fieldsClean(field.fields, depth + 1)) return false;
  }
  return true;
}

/** The relation rules. */
function relationsClean(relations: NonNullable<EntityDefinition['relations']>, fieldKeys: Keys, entityKeys: Keys): boolean {
  if (repeatsMember(relations, 'key')) return false; // relation.unique-keys
  for (const relation of relations) {
    if (hasKey(fieldKeys, relation.key) || BASE_FIELD_KEYS.has(relation.key)) return false; // relation.no-conflict
    if ((relation.relation === 'belongs_to' || relation.relation === 'self') && !relation.key.endsWith('_id')) return false; // relation.id-suffix
    // relation.target-exists (the same reading of the relation as the rule's)
    if ('entity' in relation) {
      if (!hasKey(entityKeys, relation.entity as string)) return false;
    } else if (relation.relation === 'polymorphic') {
      for (const target of relation.allowedEntities ?? []) if (!hasKey(entityKeys, target)) return false;
    }
  }
  return true;
}

/** The computed-field rules. */
function computedClean(entity: EntityDefinition, fieldKeys: Keys, relationKeys: Keys): boolean {
  const computed = entity.computed ?? [];
  if (repeatsMember(computed, 'key')) return false; // computed.unique-keys
  for (const item of computed) {
    if (hasKey(fieldKeys, item.key) || hasKey(relationKeys, item.key) || BASE_FIELD_KEYS.has(item.key)) return false; // computed.unique-keys
    if (item.dependencies !== undefined && hasRepeats(item.dependencies)) return false; // computed.dependencies
    if (item.formulaType !== 'aggregation') continue; // computed.aggregation
    if (!hasKey(relationKeys, item.relation) || (item.operation !== 'count' && item.field === undefined)) return false;
    const numeric = item.operation === 'count' || item.operation === 'sum' || item.operation === 'avg';
    if (numeric ? item.type !== 'number' : item.type === 'boolean') return false;
  }
  return true;
}

/** The lifecycle, events, field-policy and validation-block rules. */
function lifecycleClean(entity: EntityDefinition, fieldKeys: Keys): boolean {
  const { lifecycle, events, fieldPolicies, validation } = entity;
  if (lifecycle !== undefined) {
    if (lifecycle.field !== undefined && !hasKey(fieldKeys, lifecycle.field)) return false; // lifecycle.field
    // lifecycle.states
    const states = lifecycle.states;
    if (hasRepeats(states) || !states.includes(lifecycle.initial) || repeatsMember(lifecycle.transitions, 'key')) return false;
    if (!transitionsClean(states, lifecycle.transitions)) return false;
    // lifecycle.transition-lists
    for (const { guards, hooks } of lifecycle.transitions) {
      if ((guards !== undefined && hasRepeats(guards)) || (hooks !== undefined && hasRepeats(hooks))) return false;
    }
  }
  const exclude = events?.exclude ?? []; // events.exclude
  if (hasRepeats(exclude)) return false;
  for (const key of exclude) if (!hasKey(fieldKeys, key)) return false;
  if (fieldPolicies !== undefined) {
    // field-policies.keys
    for (const [key, policy] of Object.entries(fieldPolicies)) {
      if (BASE_FIELD_KEYS.has(key) || !hasKey(fieldKeys, key) || (policy.view === undefined && policy.update === undefined)) return false;
    }
  }
  return validation === undefined || validation.entityRules !== undefined || validation.serverValidators !== undefined; // validation.non-empty
}

/** `lifecycle.states` over the transitions: `from` and `to` are declared states, and no move repeats. */
function transitionsClean(states: readonly string[], transitions: NonNullable<EntityDefinition['lifecycle']>['transitions']): boolean {
  if (states.length > PAIRWISE_MAX || transitions.length > PAIRWISE_MAX) {
    const known = new Set(states);
    const moves = new Set<string>();
    for (const { from, to } of transitions) {
      if (!known.has(from) || !known.has(to) || moves.has(`${from}\u0000${to}`)) return false;
      moves.add(`${from}\u0000${to}`);
    }
    return true;
  }
  for (let i = 0; i < transitions.length; i++) {
    const { from, to } = transitions[i]!;
    if (!states.includes(from) || !states.includes(to)) return false;
    for (let j = 0; j < i; j++) if (transitions[j]!.from === from && transitions[j]!.to === to) return false;
  }
  return true;
}

/** The capability rules. */
function capabilitiesClean(entity: EntityDefinition, fieldKeys: Keys, entityKeys: Keys): boolean {
  const capabilities = entity.capabilities ?? [];
  if (repeatsMember(capabilities, 'key')) return false; // capability.unique-keys
  const transitionKeys = entity.lifecycle && keysOf(entity.lifecycle.transitions);
  for (const capability of capabilities) {
    if (hasKey(fieldKeys, capability.key) || BASE_FIELD_KEYS.has(capability.key)) return false; // capability.unique-keys
    if (!capabilityClean(capability, transitionKeys, entityKeys)) return false;
  }
  return true;
}

/** The rules over one capability and its inputs. */
function capabilityClean(capability: CapabilityDefinition, transitionKeys: Keys | undefined, entityKeys: Keys): boolean {
  // capability.transition (`transitionKeys` is absent when the entity has no lifecycle)
  if (capability.type === 'transition' && (transitionKeys === undefined || !hasKey(transitionKeys, capability.transition))) return false;
  const inputs = capability.input ?? [];
  if (repeatsMember(inputs, 'key')) return false; // capability.unique-inputs
  for (const input of inputs) {
    if (input.type === 'select') {
      // capability.select-options
      const options = input.options ?? [];
      if (options.length === 0 || hasRepeats(options)) return false;
      if (input.defaultValue !== undefined && !options.includes(String(input.defaultValue))) return false;
    } else if (input.type === 'entity') {
      // capability.entity-input
      if (input.entity === undefined || !hasKey(entityKeys, input.entity)) return false;
    }
  }
  return true;
}

/** The role rules. */
function rolesClean({ spec }: CellManifest): boolean {
  const roles = spec.roles ?? [];
  if (repeatsMember(roles, 'key')) return false; // role.unique-keys
  for (const role of roles) if (hasRepeats(role.scopes) || hasRepeats(role.identityMappings ?? [])) return false; // role.unique-scopes
  return true;
}
