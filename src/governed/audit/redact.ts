/**
 * Redaction of audit content (docs/governed-conventions.md#redaction-rules, docs/decisions/B09.md): sensitive fields keep path
 * and operation only; `redact: "hash"` keeps a keyed HMAC-SHA256 stable per tenant; `redact:
 * "length"` keeps the length; credentials never keep anything. Web Crypto only (runtime-neutral).
 */
import type { FieldDescriptor } from '../../entity-document/index.ts';
import type { JsonPatchOperation, RedactionClass } from '../patch.ts';

/** How one field is treated in audit output. */
export type FieldTreatment = 'value' | 'withhold' | 'hash' | 'length';

/** Treatment of a field by its descriptor (unknown fields, e.g. base fields, keep their value). */
export function treatmentOf(field: FieldDescriptor | undefined): FieldTreatment {
  if (field === undefined) return 'value';
  if (field.sensitive || field.credential) return 'withhold';
  return field.redact ?? 'value';
}

/**
 * The redaction class of a field: what decides whether a JSON Patch may `copy`/`move` its value
 * into another field (only into the same class; never out of a credential). Unknown fields are
 * `value`.
 */
export function redactionClassOf(field: FieldDescriptor | undefined): RedactionClass {
  if (field === undefined) return 'value';
  if (field.credential) return 'credential';
  if (field.sensitive) return 'sensitive';
  return field.redact ?? 'value';
}

const encoder = new TextEncoder();
const toHex = (buffer: ArrayBuffer): string => [...new Uint8Array(buffer)].map((byte) => byte.toString(16).padStart(2, '0')).join('');

/** Keyed HMAC-SHA256 per tenant: the tenant key is HMAC(secret, tenantId), so equal text hashes equal within a tenant only. */
export class TenantHasher {
  private readonly keys = new Map<string, Promise<CryptoKey>>();
  private readonly root: Promise<CryptoKey>;

  constructor(secret: string) {
    this.root = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  }

  private keyFor(tenantId: string): Promise<CryptoKey> {
    let key = this.keys.get(tenantId);
    if (key === undefined) {
      key = this.root
        .then((root) => crypto.subtle.sign('HMAC', root, encoder.encode(`cellgate-audit-tenant:${tenantId}`)))
        .then((raw) => crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']));
      // Bounded cache: a key is cheap to derive again.
      if (this.keys.size >= 10_000) this.keys.clear();
      this.keys.set(tenantId, key);
    }
    return key;
  }

  /** `hmac-sha256:<hex>` of the text under the tenant's key. */
  async hash(tenantId: string, text: string): Promise<string> {
    const signature = await crypto.subtle.sign('HMAC', await this.keyFor(tenantId), encoder.encode(text));
    return `hmac-sha256:${toHex(signature)}`;
  }
}

/** What redaction needs: the treatment of each top-level (camelCase) field, the hasher, the tenant. */
export interface RedactionContext {
  treatments: ReadonlyMap<string, FieldTreatment>;
  hasher: TenantHasher;
  tenantId: string;
  /** False keeps only path and op of every diff operation. */
  storeDiffValues: boolean;
}

/** The first segment of a pointer, unescaped. */
function topField(path: string): string {
  const segment = path.slice(1).split('/')[0] ?? '';
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** A redacted diff operation: value replaced by nothing, a hash, or a length. */
export type RedactedOperation = { op: JsonPatchOperation['op']; path: string; value?: unknown; valueHash?: string; valueLength?: number };

/** Redacts diff operations; `applied` tells whether anything was withheld. */
export async function redactDiff(
  operations: readonly JsonPatchOperation[],
  context: RedactionContext,
): Promise<{ diff: RedactedOperation[]; applied: boolean }> {
  let applied = false;
  const diff: RedactedOperation[] = [];
  for (const operation of operations) {
    const treatment = context.treatments.get(topField(operation.path)) ?? 'value';
    const hasValue = Object.hasOwn(operation, 'value');
    if (!hasValue || (treatment === 'value' && context.storeDiffValues)) {
      diff.push({ ...operation });
      continue;
    }
    applied = true;
    const value = operation.value;
    if (treatment === 'hash' && typeof value === 'string' && context.storeDiffValues)
      diff.push({ op: operation.op, path: operation.path, valueHash: await context.hasher.hash(context.tenantId, value) });
    else if (treatment === 'length' && typeof value === 'string' && context.storeDiffValues)
      diff.push({ op: operation.op, path: operation.path, valueLength: value.length });
    else diff.push({ op: operation.op, path: operation.path });
  }
  return { diff, applied };
}

/** Marker of a withheld value in a snapshot. */
export const REDACTED = '[REDACTED]';

/** Redacts a camelCase snapshot field by field; `applied` tells whether anything was withheld. */
export async function redactSnapshot(
  state: Record<string, unknown>,
  context: RedactionContext,
): Promise<{ snapshot: Record<string, unknown>; applied: boolean }> {
  let applied = false;
  const snapshot: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(state)) {
    const treatment = context.treatments.get(name) ?? 'value';
    if (treatment === 'value' || value === null || value === undefined) {
      snapshot[name] = value;
      continue;
    }
    applied = true;
    if (treatment === 'hash' && typeof value === 'string') snapshot[name] = { redacted: 'hash', hash: await context.hasher.hash(context.tenantId, value) };
    else if (treatment === 'length' && typeof value === 'string') snapshot[name] = { redacted: 'length', length: value.length };
    else snapshot[name] = REDACTED;
  }
  return { snapshot, applied };
}
