/**
 * `cellgate validate` reports every problem it can find in one pass. Inside one document the
 * structural problems (the schema) short-circuit the semantic ones (the rules), so a newcomer sees
 * at most two rounds: all structural problems at once, then, once the structure holds, all semantic
 * problems at once, whichever rules they break. Each keeps its line and column.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { run } from '../../src/cli/commands/validate.ts';
import { validateManifest } from '../../src/contract/validate/index.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cellgate-validate-one-pass-'));
});

interface Located {
  field: string;
  message: string;
  line: number;
  column: number;
}

/** Runs `cellgate validate <text as file> --format json` and answers the one file's problems. */
async function validate(name: string, text: string): Promise<{ code: number; errors: Located[] }> {
  await writeFile(join(dir, name), text);
  const out: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void out.push(line));
  try {
    const code = await run([join(dir, name), '--format', 'json']);
    const [report] = JSON.parse(out.join('\n')) as Array<{ errors: Located[] }>;
    return { code, errors: report!.errors };
  } finally {
    log.mockRestore();
  }
}

/** The 1-based line of the first line of `text` holding `needle`. */
const lineOf = (text: string, needle: string): number => text.split('\n').findIndex((line) => line.includes(needle)) + 1;

// Structurally valid; every commented line breaks a different semantic rule.
const SEMANTIC = `apiVersion: platform/v1alpha1
kind: Cell
metadata:
  key: crm
  name: CRM
  version: 1.0.0
spec:
  mount:
    mountPath: /crm
    landingPage: nowhere # manifest.landing-page
  roles:
    - { key: admin, name: Admin, scopes: [a, a] } # role.unique-scopes
    - { key: admin, name: Again, scopes: [b] } # role.unique-keys
  entities:
    - key: customer
      name: Customer
      pluralName: Customers
      fields:
        - { key: name, type: string, name: Name }
        - { key: name, type: string, name: Twice } # field.unique-keys
      relations:
        - { key: owner, relation: belongs_to, entity: ghost } # relation.id-suffix, relation.target-exists
      lifecycle:
        field: status # lifecycle.field
        states: [open, closed]
        initial: draft # lifecycle.states
        transitions:
          - { key: close, from: open, to: closed }
      capabilities:
        - { key: archive, type: transition, transition: nope } # capability.transition
  pages:
    - { key: home, type: dashboard, title: Home, path: /home, entity: customer } # page.entity-forbidden
    - { key: list, type: entity-list, title: List, path: /home, entity: phantom } # page.unique-paths, page.entity-exists
  navigation:
    items:
      - { type: page, key: n1, pageKey: missing, label: Missing } # navigation.page-exists
`;

// The same kind of document with structural problems in many places, and semantic ones besides.
const STRUCTURAL = `apiVersion: platform/v1alpha1
kind: Cell
metadata:
  name: CRM # metadata.key missing
  version: 1.0.0
  colour: red # unknown key
spec:
  mount:
    landingPage: 7 # mountPath missing, wrong type
  entities:
    - key: customer
      name: Customer
      pluralName: Customers
      fields:
        - { key: name, type: strng, name: Name } # bad enum
        - { key: name, type: string } # name missing (and a duplicate key: semantic)
      relations:
        - { key: owner, relation: belongs_to } # entity missing
  pages:
    - { key: home, type: dashbord, title: Home, path: /home } # bad enum
    - { key: list, type: entity-list, path: /home, entity: ghost } # title missing (and a duplicate path: semantic)
`;

describe('cellgate validate: every problem of a document in one pass', () => {
  it('lists the problems of every semantic rule at once, each at its line and column', async () => {
    const { code, errors } = await validate('semantic.yaml', SEMANTIC);
    expect(code).toBe(1);
    const expected: Array<[field: string, message: RegExp, line: string]> = [
      ['spec.mount.landingPage', /landingPage "nowhere"/, 'landingPage: nowhere'],
      ['spec.pages', /Duplicate page path: "\/home"/, 'key: home'],
      ['spec.pages[home].entity', /must not set an entity key/, 'key: home'],
      ['spec.pages[list].entity', /unknown entity key: "phantom"/, 'key: list'],
      ['spec.navigation', /unknown page key: "missing"/, 'key: n1'],
      ['spec.entities[customer].fields[name]', /Duplicate field key: "name"/, 'name: Name }'],
      ['spec.entities[customer].relations[owner]', /must end with "_id"/, 'key: owner'],
      ['spec.entities[customer].relations[owner]', /unknown entity key: "ghost"/, 'key: owner'],
      ['spec.entities[customer].lifecycle.field', /"status"/, 'field: status'],
      ['spec.entities[customer].lifecycle.initial', /initial must be/, 'initial: draft'],
      ['spec.entities[customer].capabilities[archive]', /unknown lifecycle transition "nope"/, 'key: archive'],
      ['spec.roles', /role keys must be unique/, 'key: admin, name: Admin'],
      ['spec.roles[admin].scopes', /scopes must be unique/, 'scopes: [a, a]'],
    ];
    for (const [field, message, line] of expected) {
      const found = errors.find((error) => error.field === field && message.test(error.message));
      expect(found, `${field} ${message}: ${JSON.stringify(errors)}`).toBeDefined();
      // The node's own line, or, for a list-wide problem (`spec.pages`), the list's first line.
      expect([lineOf(SEMANTIC, line), lineOf(SEMANTIC, line) - 1], field).toContain(found!.line);
      expect(found!.column, field).toBeGreaterThan(0);
    }
    expect(errors).toHaveLength(expected.length);
    // The public validator behind the command gives the same list.
    expect(validateManifest(parse(SEMANTIC)).errors.map(({ field, message }) => ({ field, message }))).toEqual(
      errors.map(({ field, message }) => ({ field, message })),
    );
  });

  it('lists every structural problem at once, and holds back the semantic ones until the structure is valid', async () => {
    const { code, errors } = await validate('structural.yaml', STRUCTURAL);
    expect(code).toBe(1);
    expect(errors.map((error) => error.field).sort()).toEqual(
      [
        'metadata.key',
        'metadata',
        'spec.mount.mountPath',
        'spec.mount.landingPage',
        'spec.entities.0.fields.0.type',
        'spec.entities.0.fields.1.name',
        'spec.entities.0.relations.0.entity',
        'spec.pages.0.type',
        'spec.pages.1.title',
      ].sort(),
    );
    for (const error of errors) expect(error.line, error.field).toBeGreaterThan(1);
    // No semantic problem (bracket-key paths) while the structure is broken.
    expect(errors.filter((error) => error.field.includes('['))).toEqual([]);
  });

  it('lists every semantic problem of a standalone entity definition document at once', async () => {
    const document = `$schema: https://cellgate.dev/schemas/entity-definition/v1.json
name: Invoice
key: crm.invoice
version: 1.0.0
description: An invoice.
scope: workspace-shared
governance_tier: tier-2
permissions: { view: [viewer], edit: [editor], admin: [admin] }
fields:
  Amount: { type: number }
  total: { type: integer, format: email }
  status: { type: integer, enum: [a, b] }
  created_at: { type: string }
data:
  sorting: { allowedFields: [total, nowhere], default: { field: status, direction: asc } }
`;
    const { code, errors } = await validate('invoice.entity.yaml', document);
    expect(code).toBe(1);
    expect(errors.map((error) => error.field).sort()).toEqual(
      [
        'fields.Amount',
        'fields.total.format',
        'fields.status.enum',
        'fields.created_at.format',
        'data.sorting.allowedFields.1',
        'data.sorting.default.field',
      ].sort(),
    );
    for (const error of errors) expect(error.line, error.field).toBeGreaterThan(9);
  });
});
