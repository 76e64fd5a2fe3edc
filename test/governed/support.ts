/**
 * Shared helpers of the governed HTTP tests: fixed ids, tokens minted with jose, the demo entity
 * documents, a request helper that parses the envelope, and an in-process node:http server.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT } from 'jose';
import type { FetchHandler } from 'cellgate';
import { toNodeHandler } from 'cellgate/adapters/node';
import { expect } from 'vitest';

export const SECRET = 'behaviour-suite-secret-behaviour-suite-secret';

export const ids = {
  tenant: '11111111-1111-4111-8111-111111111111',
  otherTenant: '22222222-2222-4222-8222-222222222222',
  ws: '33333333-3333-4333-8333-333333333333',
  otherWs: '44444444-4444-4444-8444-444444444444',
  cell: '55555555-5555-4555-8555-555555555555',
  otherCell: '66666666-6666-4666-8666-666666666666',
  admin: '77777777-7777-4777-8777-777777777777',
  editor: '88888888-8888-4888-8888-888888888888',
  viewer: '99999999-9999-4999-8999-999999999999',
} as const;

/** Reads a demo entity document of examples/entities. */
export function demoEntity(name: 'customer' | 'invoice' | 'activity-event'): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`../../examples/entities/${name}.entity.json`, import.meta.url), 'utf8')) as Record<string, unknown>;
}

/** Claims of a test token. */
export interface TokenClaimsInput {
  sub?: string;
  tenant?: string;
  roles?: string[];
  workspaces?: Record<string, string[]>;
  permissions?: string[];
  plan?: string;
  actorType?: 'user' | 'service';
  expiresIn?: string | number;
  secret?: string;
  extra?: Record<string, unknown>;
}

/** Mints an HS256 token with jose (tests never rely on the code under test to sign). */
export async function mint(input: TokenClaimsInput = {}): Promise<string> {
  const claims: Record<string, unknown> = {
    tenant_id: input.tenant ?? ids.tenant,
    roles: input.roles ?? [],
    workspaces: input.workspaces ?? {},
    permissions: input.permissions ?? [],
    ...(input.actorType ? { actor_type: input.actorType } : {}),
    ...(input.plan ? { plan: input.plan } : {}),
    ...input.extra,
  };
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(input.sub ?? ids.admin)
    .setIssuedAt()
    .setExpirationTime(input.expiresIn ?? '10m')
    .sign(new TextEncoder().encode(input.secret ?? SECRET));
}

/** Tokens of the usual cast: admin everywhere in the tenant with history and restore rights, editor and viewer in `ws`. */
export async function cast() {
  const everywhere = { [ids.ws]: ['admin'], [ids.otherWs]: ['admin'] };
  return {
    admin: await mint({
      sub: ids.admin,
      roles: ['admin'],
      workspaces: everywhere,
      permissions: ['audit:read', 'audit:restore', 'crm.customers.read', 'crm.invoices.read', 'ops.activity-events.read'],
    }),
    adminNoPerms: await mint({ sub: ids.admin, roles: ['admin'], workspaces: everywhere }),
    editor: await mint({ sub: ids.editor, workspaces: { [ids.ws]: ['editor'] }, roles: [], permissions: ['audit:read'] }),
    viewer: await mint({ sub: ids.viewer, workspaces: { [ids.ws]: ['viewer'] } }),
    stranger: await mint({ sub: ids.viewer, workspaces: { [ids.otherWs]: ['admin'] } }),
    otherTenant: await mint({ tenant: ids.otherTenant, sub: ids.admin, roles: ['admin'], permissions: ['audit:read', 'audit:restore'] }),
  };
}

/** A parsed answer. */
export interface Answer {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON of many shapes, asserted field by field
  text: string;
}

/** Options of {@link send}. */
export interface SendOptions {
  token?: string;
  body?: unknown;
  /** Sent as is (no JSON encoding). */
  raw?: string;
  headers?: Record<string, string>;
}

/** Something that answers requests: an in-process handler or a base URL over real HTTP. */
export type Target = FetchHandler | string;

/** Sends a request to a handler (in process) or a base URL (real HTTP) and parses the answer. */
export async function send(target: Target, method: string, path: string, options: SendOptions = {}): Promise<Answer> {
  const headers = new Headers(options.headers);
  if (options.token !== undefined) headers.set('authorization', `Bearer ${options.token}`);
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  const url = typeof target === 'string' ? `${target}${path}` : `http://test.local${path}`;
  const request = new Request(url, { method, headers, ...(body === undefined ? {} : { body }) });
  const response = typeof target === 'string' ? await fetch(request) : await target(request);
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

/** Asserts an error envelope with `code` (and the status the code maps to). */
export function expectError(answer: Answer, status: number, code: string): void {
  expect({ status: answer.status, error: answer.body?.error }).toEqual({ status, error: code });
  expect(typeof answer.body.message).toBe('string');
  expect(answer.text).not.toMatch(/\n\s+at |node_modules|\.ts:\d+/);
}

/** Serves a handler on 127.0.0.1:0 with the node adapter; `close()` stops it. */
export async function serve(handler: FetchHandler): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer(toNodeHandler(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Collection paths of the three demo resources. */
export const paths = {
  customers: (ws: string = ids.ws) => `/v1/workspaces/${ws}/customers`,
  invoices: (ws: string = ids.ws, cell: string = ids.cell) => `/v1/workspaces/${ws}/cells/${cell}/invoices`,
  events: () => '/v1/activity-events',
};

/** A valid customer body. */
export const customer = (overrides: Record<string, unknown> = {}) => ({
  name: 'Acme Corp',
  email: 'ceo@acme.example',
  status: 'lead',
  annualRevenue: 1000,
  ...overrides,
});

/** A valid invoice body. */
export const invoice = (overrides: Record<string, unknown> = {}) => ({
  invoiceNumber: 'INV-001',
  customerId: ids.viewer,
  customerName: 'Acme Corp',
  amount: 120,
  dueDate: '2026-03-01T00:00:00.000Z',
  status: 'DRAFT',
  ...overrides,
});
