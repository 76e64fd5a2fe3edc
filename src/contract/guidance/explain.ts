/**
 * `explainErrors` (docs/decisions/A16.md): for each validation error, a fix and the MCP tools that give the
 * schema context. An ordered pattern table is matched against the error's field and message; the
 * patterns follow the wording of our own validators (schema/messages.ts and validate/rules).
 */
import type { ValidationIssue } from '../../validation/results.ts';
import type { ErrorExplanation } from './schemas.ts';

/** MCP tools an explanation may point to (a subset of the 19). */
type Tool =
  | 'get_manifest_schema'
  | 'get_entity_definition_schema'
  | 'get_page_schema'
  | 'get_capability_schema'
  | 'get_primitive_contract'
  | 'get_primitive_examples'
  | 'recommend_manifest_structure'
  | 'suggest_page_set_for_entities'
  | 'suggest_relations'
  | 'get_example_manifest';

interface Pattern {
  /** Matches the message (and, where given, the field). */
  message: RegExp;
  field?: RegExp;
  fix: (field: string, match: RegExpExecArray) => string;
  tools: readonly Tool[];
}

/** The schema tool for the part of a document a path points into. */
function contextTool(field: string): Tool {
  if (/(^|\.)capabilities/.test(field)) return 'get_capability_schema';
  if (/^props(\.|$)/.test(field)) return 'get_primitive_contract';
  if (/^spec\.pages|^(menu|dataContext|dataProviders)(\.|$)/.test(field)) return 'get_page_schema';
  if (/^spec\.entities|^(fields|relations|computed|lifecycle|events|policies|fieldPolicies|validation|governance|pluralName)(\.|\[|$)/.test(field)) {
    return 'get_entity_definition_schema';
  }
  return 'get_manifest_schema';
}

/** `spec.mount.landingPage` → `` `landingPage` to `spec.mount` ``; `spec` → `` `spec` to the document root ``. */
function missingMember(field: string): string {
  const segments = field.split('.');
  const name = segments.pop() ?? field;
  return `\`${name}\` to ${segments.length === 0 ? 'the document root' : `\`${segments.join('.')}\``}`;
}

/** Ordered: the first pattern whose message (and field) regex matches explains the error. */
const patterns: readonly Pattern[] = [
  {
    field: /^apiVersion$/,
    message: /^(Required|Invalid literal value)/,
    fix: () => 'Set `apiVersion: platform/v1alpha1` at the top of the manifest. get_manifest_schema shows the root members.',
    tools: ['get_manifest_schema'],
  },
  {
    field: /^kind$/,
    message: /^(Required|Invalid literal value)/,
    fix: () => 'Set `kind: Cell` at the top of the manifest. get_manifest_schema shows the root members.',
    tools: ['get_manifest_schema'],
  },
  {
    message: /^Required$/,
    fix: (field) => `Add the required member ${missingMember(field)}. The schema tool lists every required member of that object.`,
    tools: [],
  },
  {
    message: /^Invalid literal value, expected (".*")/,
    fix: (field, match) => `Set \`${field}\` to exactly ${match[1]}.`,
    tools: [],
  },
  {
    message: /^Unrecognized key\(s\) in object: (.+)$/,
    fix: (field, match) =>
      `Remove or rename ${match[1]} in \`${field}\`: the object is strict and only accepts the members the schema lists. Check spelling and casing.`,
    tools: [],
  },
  {
    message: /^Invalid discriminator value\. Expected (.+)$/,
    fix: (field, match) =>
      `Set the tag of \`${field}\` (\`type\`, \`relation\` or \`formulaType\`) to one of ${match[1]}; each value has its own required members.`,
    tools: [],
  },
  {
    message: /^Invalid enum value\. Expected (.+), received/,
    fix: (field, match) => `Use one of ${match[1]} for \`${field}\`.`,
    tools: [],
  },
  {
    message: /^Expected (\w+), received (\w+)$/,
    fix: (field, match) => `Give \`${field}\` a value of type ${match[1]} instead of ${match[2]}.`,
    tools: [],
  },
  {
    message: /must contain at least (\d+) (element|character)/,
    fix: (field, match) => `\`${field}\` may not be empty: give it at least ${match[1]} ${match[2]}${match[1] === '1' ? '' : 's'}.`,
    tools: [],
  },
  {
    message: /Must start with a lowercase letter|must be snake_case/,
    fix: (field) =>
      `Rename the key at \`${field}\` to snake_case: a lowercase letter first, then lowercase letters, digits or underscores (e.g. "customer_order").`,
    tools: [],
  },
  {
    message: /^landingPage "(.*)" does not reference a valid page key/,
    fix: (_field, match) => `Set \`spec.mount.landingPage\` to the key of a page in \`spec.pages\` (e.g. "dashboard"), or add a page with key "${match[1]}".`,
    tools: ['get_manifest_schema', 'get_page_schema'],
  },
  {
    message: /^Page references unknown entity key: "(.*)"/,
    fix: (_field, match) => `Add an entity with key "${match[1]}" to \`spec.entities\`, or point the page at an existing entity key.`,
    tools: ['get_page_schema', 'get_entity_definition_schema'],
  },
  {
    message: /^Duplicate page path|^page keys must be unique|Only one is allowed per entity|^Page type ".*" (requires|must not set) an entity/,
    fix: () =>
      'Give every page a unique key and path, keep at most one page per entity and type, and set `entity` exactly on entity-* pages. suggest_page_set_for_entities generates a consistent set.',
    tools: ['get_page_schema', 'suggest_page_set_for_entities'],
  },
  {
    message: /must start with "\/"/,
    fix: (field) => `Start \`${field.endsWith('mountPath') ? 'spec.mount.mountPath' : field}\` with "/" (e.g. "/customers").`,
    tools: [],
  },
  {
    message: /^Navigation references unknown page key|^navigation item key|referenced multiple times in navigation/,
    fix: () => 'Point each navigation item at an existing page key, and use every item key and page key once in the whole navigation tree.',
    tools: ['get_manifest_schema', 'suggest_page_set_for_entities'],
  },
  {
    message: /reserved by the base entity|reserved base entity field/,
    fix: (field) =>
      `Remove or rename the key at \`${field}\`: id, createdAt, updatedAt, version and the other base fields are added to every entity automatically.`,
    tools: ['get_entity_definition_schema'],
  },
  {
    message: /relation key must end with "_id"/,
    fix: (field) =>
      `Rename the relation at \`${field}\` so its key ends with "_id" (e.g. "customer_id"); belongs_to and self relation keys name the stored reference.`,
    tools: ['get_entity_definition_schema', 'suggest_relations'],
  },
  {
    message: /^Relation ".*" references unknown entity key: "(.*)"/,
    fix: (_field, match) => `Add an entity "${match[1]}" to the manifest or change the relation's \`entity\` to an existing entity key.`,
    tools: ['get_entity_definition_schema', 'suggest_relations'],
  },
  {
    message: /^(entity|role) keys must be unique/,
    fix: (field) => `Give every item of \`${field}\` its own key; the duplicate is named in the message.`,
    tools: [],
  },
  {
    message: /aggregates unknown relation|when operation is/,
    fix: (field) =>
      `Fix the aggregation at \`${field}\`: it must name a relation of the entity, a \`field\` unless the operation is count, and a value type that fits the operation.`,
    tools: ['get_entity_definition_schema'],
  },
  {
    message: /^Duplicate (field|relation|computed field|capability|input) key|conflicts with a (field|relation) key/,
    fix: (field) => `Rename one of the clashing keys at \`${field}\`: field, relation, computed and capability keys share one namespace within an entity.`,
    tools: [],
  },
  {
    message: /enumValues/,
    fix: (field) => `Give the enum field at \`${field}\` a non-empty \`enumValues\` list, e.g. ["draft", "sent", "paid"].`,
    tools: ['get_entity_definition_schema'],
  },
  {
    message: /lifecycle|transition|initial must be one of|states must be unique/,
    fix: () =>
      '`lifecycle.field` must be a declared field (usually an enum), `initial` and every transition `from`/`to` must be declared states, and a transition capability must name an existing transition key.',
    tools: ['get_entity_definition_schema', 'get_capability_schema'],
  },
  {
    message: /^(Select|Entity) input|defaultValue must be one of|options must be unique/,
    fix: (field) =>
      `Fix the capability input at \`${field}\`: select inputs need unique, non-empty options (defaultValue among them), entity inputs name a target entity.`,
    tools: ['get_capability_schema'],
  },
  {
    message: /^cell spec must define at least/,
    fix: () => 'Add at least one of `spec.entities`, `spec.pages` or `spec.navigation`. recommend_manifest_structure drafts them from a goal.',
    tools: ['recommend_manifest_structure', 'get_manifest_schema'],
  },
  {
    message: /exceeds max nesting depth/,
    fix: (field) => `Flatten the object field at \`${field}\`: object fields nest at most three levels.`,
    tools: ['get_entity_definition_schema'],
  },
  {
    message: /must be unique/,
    fix: (field) => `Remove the duplicate values at \`${field}\`.`,
    tools: [],
  },
];

function explainOne({ field, message }: ValidationIssue): ErrorExplanation {
  const context = contextTool(field);
  for (const pattern of patterns) {
    if (pattern.field && !pattern.field.test(field)) continue;
    const match = pattern.message.exec(message);
    if (!match) continue;
    const tools = [...new Set<Tool>([...pattern.tools, context])];
    return { path: field, problem: message, fix: `${pattern.fix(field, match)} See ${tools[0]}.`, relatedTools: tools };
  }
  const tools = [...new Set<Tool>([context, 'get_manifest_schema'])];
  return {
    path: field,
    problem: message,
    fix: `Compare \`${field}\` with the schema: ${tools[0]} lists the allowed members, types and rules. get_example_manifest shows a valid document.`,
    relatedTools: [...tools, 'get_example_manifest'],
  };
}

/**
 * One explanation per error, same order: `path` = field, `problem` = message, a `fix`, and the
 * MCP tools that help (never empty).
 *
 * @example
 * explainErrors([{ field: 'apiVersion', message: 'Required' }])[0].fix; // 'Set `apiVersion: platform/v1alpha1` …'
 */
export function explainErrors(errors: readonly ValidationIssue[]): ErrorExplanation[] {
  return errors.map(explainOne);
}
