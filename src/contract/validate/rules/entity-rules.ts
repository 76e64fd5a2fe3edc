/** Rules over one entity beyond its fields: relations, computed fields, lifecycle, events, policies. */
import { keyed, BASE_FIELD_KEYS, listOf, repeatedValues, hasRepeats } from './helpers.ts';
import { rule } from './types.ts';

const fieldKeys = (entity: { fields: readonly { key: string }[] }): Set<string> => new Set(entity.fields.map((field) => field.key));

/** Relation and computed-field rules. */
export const relationRules = [
  rule({
    id: 'relation.unique-keys',
    scope: 'entity',
    description: 'Relation keys are unique within an entity.',
    check: ({ entity, at }, report) => {
      for (const key of repeatedValues((entity.relations ?? []).map((relation) => relation.key))) {
        report(keyed(`${at}.relations`, key), `Duplicate relation key: "${key}"`);
      }
    },
  }),
  rule({
    id: 'relation.no-conflict',
    scope: 'entity',
    description: 'Relation keys do not conflict with field keys or base entity fields.',
    check: ({ entity, at }, report) => {
      // The field keys are gathered only when there is something to compare them with (here and below).
      if (entity.relations === undefined || entity.relations.length === 0) return;
      const fields = fieldKeys(entity);
      for (const { key } of entity.relations) {
        if (fields.has(key)) report(keyed(`${at}.relations`, key), `Relation key "${key}" conflicts with a field key of the same name`);
        else if (BASE_FIELD_KEYS.has(key)) report(keyed(`${at}.relations`, key), `Relation key "${key}" conflicts with a reserved base entity field key`);
      }
    },
  }),
  rule({
    id: 'relation.id-suffix',
    scope: 'entity',
    description: 'belongs_to and self relation keys end with `_id`.',
    check: ({ entity, at }, report) => {
      for (const relation of entity.relations ?? []) {
        if ((relation.relation === 'belongs_to' || relation.relation === 'self') && !relation.key.endsWith('_id')) {
          report(keyed(`${at}.relations`, relation.key), `${relation.relation} relation key must end with "_id"`);
        }
      }
    },
  }),
  rule({
    id: 'relation.target-exists',
    scope: 'entity',
    description: 'A belongs_to relation names its target entity key; in a manifest, relation targets are entities of the manifest.',
    check: ({ entity, at, index }, report) => {
      if (index === undefined) return;
      for (const relation of entity.relations ?? []) {
        const targets = 'entity' in relation ? [relation.entity] : relation.relation === 'polymorphic' ? (relation.allowedEntities ?? []) : [];
        for (const target of targets) {
          if (!index.entities.has(target)) {
            report(keyed(`${at}.relations`, relation.key), `Relation "${relation.key}" references unknown entity key: "${target}"`);
          }
        }
      }
    },
  }),
  rule({
    id: 'computed.unique-keys',
    scope: 'entity',
    description: 'Computed field keys are unique and do not conflict with field, relation or base entity keys.',
    check: ({ entity, at }, report) => {
      const computed = entity.computed ?? [];
      if (computed.length === 0) return;
      for (const key of repeatedValues(computed.map((item) => item.key))) {
        report(keyed(`${at}.computed`, key), `Duplicate computed field key: "${key}"`);
      }
      const fields = fieldKeys(entity);
      const relations = new Set((entity.relations ?? []).map((relation) => relation.key));
      for (const { key } of computed) {
        const path = keyed(`${at}.computed`, key);
        if (fields.has(key)) report(path, `Computed field key "${key}" conflicts with a field key of the same name`);
        else if (relations.has(key)) report(path, `Computed field key "${key}" conflicts with a relation key of the same name`);
        else if (BASE_FIELD_KEYS.has(key)) report(path, `Computed field key "${key}" conflicts with a reserved base entity field key`);
      }
    },
  }),
  rule({
    id: 'computed.aggregation',
    scope: 'entity',
    description: 'Aggregations name a declared relation, a `field` unless counting, and a value type that fits the operation.',
    check: ({ entity, at }, report) => {
      if (entity.computed === undefined || entity.computed.length === 0) return;
      const relations = new Set((entity.relations ?? []).map((relation) => relation.key));
      for (const item of entity.computed) {
        if (item.formulaType !== 'aggregation') continue;
        const path = keyed(`${at}.computed`, item.key);
        if (!relations.has(item.relation)) report(`${path}.relation`, `Computed field "${item.key}" aggregates unknown relation "${item.relation}"`);
        if (item.operation !== 'count' && item.field === undefined) report(`${path}.field`, `field is required when operation is "${item.operation}"`);
        const numeric = item.operation === 'count' || item.operation === 'sum' || item.operation === 'avg';
        if (numeric && item.type !== 'number') report(`${path}.type`, `type must be "number" when operation is "${item.operation}"`);
        if (!numeric && item.type === 'boolean') {
          report(`${path}.type`, `type must be one of number, date, datetime, string when operation is "${item.operation}"`);
        }
      }
    },
  }),
  rule({
    id: 'computed.dependencies',
    scope: 'entity',
    description: 'A computed field lists each of its `dependencies` once.',
    check: ({ entity, at }, report) => {
      for (const item of entity.computed ?? []) {
        if (item.dependencies !== undefined && hasRepeats(item.dependencies)) {
          report(`${keyed(`${at}.computed`, item.key)}.dependencies`, 'dependencies must be unique');
        }
      }
    },
  }),
];

/** Lifecycle, events, field policies and validation-block rules. */
export const lifecycleRules = [
  rule({
    id: 'lifecycle.field',
    scope: 'entity',
    description: '`lifecycle.field` references a declared field.',
    check: ({ entity, at }, report) => {
      const field = entity.lifecycle?.field;
      if (field !== undefined && !fieldKeys(entity).has(field)) {
        report(`${at}.lifecycle.field`, `lifecycle.field "${field}" does not reference a declared field key`);
      }
    },
  }),
  rule({
    id: 'lifecycle.states',
    scope: 'entity',
    description: 'Lifecycle states are unique; `initial` and every transition `from`/`to` are declared states; transition keys and moves are unique.',
    check: ({ entity, at }, report) => {
      const lifecycle = entity.lifecycle;
      if (lifecycle === undefined) return;
      const path = `${at}.lifecycle`;
      const states = new Set(lifecycle.states);
      if (states.size !== lifecycle.states.length) report(`${path}.states`, 'states must be unique');
      if (!states.has(lifecycle.initial)) report(`${path}.initial`, 'initial must be one of the declared lifecycle states');
      for (const key of repeatedValues(lifecycle.transitions.map((transition) => transition.key))) {
        report(`${path}.transitions`, `transition keys must be unique (duplicate: "${key}")`);
      }
      const moves = new Set<string>();
      for (const transition of lifecycle.transitions) {
        const where = keyed(`${path}.transitions`, transition.key);
        if (!states.has(transition.from)) report(`${where}.from`, `transition.from must be one of: ${listOf(lifecycle.states)}`);
        if (!states.has(transition.to)) report(`${where}.to`, `transition.to must be one of: ${listOf(lifecycle.states)}`);
        const move = `${transition.from}\u0000${transition.to}`;
        if (moves.has(move)) report(where, `duplicate transition "${transition.from}" -> "${transition.to}"`);
        moves.add(move);
      }
    },
  }),
  rule({
    id: 'lifecycle.transition-lists',
    scope: 'entity',
    description: 'A lifecycle transition lists each of its `guards` and each of its `hooks` once.',
    check: ({ entity, at }, report) => {
      for (const transition of entity.lifecycle?.transitions ?? []) {
        const where = keyed(`${at}.lifecycle.transitions`, transition.key);
        if (transition.guards !== undefined && hasRepeats(transition.guards)) report(`${where}.guards`, 'guards must be unique');
        if (transition.hooks !== undefined && hasRepeats(transition.hooks)) report(`${where}.hooks`, 'hooks must be unique');
      }
    },
  }),
  rule({
    id: 'events.exclude',
    scope: 'entity',
    description: '`events.exclude` lists declared field keys, each once.',
    check: ({ entity, at }, report) => {
      const exclude = entity.events?.exclude ?? [];
      if (exclude.length === 0) return;
      const fields = fieldKeys(entity);
      if (hasRepeats(exclude)) report(`${at}.events.exclude`, 'exclude must contain unique field names');
      for (const key of exclude) {
        if (!fields.has(key)) report(`${at}.events.exclude`, `events.exclude field "${key}" does not reference a declared field key`);
      }
    },
  }),
  rule({
    id: 'field-policies.keys',
    scope: 'entity',
    description: '`fieldPolicies` keys reference declared fields (never base fields), and each defines view or update.',
    check: ({ entity, at }, report) => {
      if (entity.fieldPolicies === undefined) return;
      const fields = fieldKeys(entity);
      for (const [key, policy] of Object.entries(entity.fieldPolicies)) {
        if (BASE_FIELD_KEYS.has(key)) report(`${at}.fieldPolicies`, `fieldPolicies key "${key}" conflicts with a reserved base entity field key`);
        else if (!fields.has(key)) report(`${at}.fieldPolicies`, `fieldPolicies key "${key}" does not reference a declared field key`);
        if (policy.view === undefined && policy.update === undefined) {
          report(keyed(`${at}.fieldPolicies`, key), 'field policy override must define at least view or update');
        }
      }
    },
  }),
  rule({
    id: 'validation.non-empty',
    scope: 'entity',
    description: 'A `validation` block defines entityRules or serverValidators.',
    check: ({ entity, at }, report) => {
      const block = entity.validation;
      if (block !== undefined && block.entityRules === undefined && block.serverValidators === undefined) {
        report(`${at}.validation`, 'validation must define at least entityRules or serverValidators');
      }
    },
  }),
];

/** Manifest-level entity rule: entity keys are unique. */
export const entityKeyRule = rule({
  id: 'entity.unique-keys',
  scope: 'manifest',
  description: 'Entity keys are unique across the manifest.',
  check: ({ manifest }, report) => {
    for (const key of repeatedValues((manifest.spec.entities ?? []).map((entity) => entity.key))) {
      report('spec.entities', `entity keys must be unique (duplicate: "${key}")`);
    }
  },
});
