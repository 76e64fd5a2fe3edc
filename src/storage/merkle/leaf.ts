/**
 * The leaf of one audit record in its tenant's log (docs/verifiable-history.md#leaves).
 *
 * A leaf is the canonical JSON of the stored (already redacted) audit record, except that every
 * value an erasure may later remove (a diff operation's `value`, a snapshot member) is replaced
 * by a salted commitment, SHA-256(salt ‖ canonical value) with 16 random bytes of salt. The salts
 * are kept beside the leaf (its openings). An erasure removes a value and replaces its salt by
 * the commitment it opened: the leaf, and every checkpoint and proof over it, stay valid, and
 * nothing left can be hashed against a guessed value (the salt is gone).
 */
import { bytesToBase64, base64ToBytes } from '../../base64.ts';
import type { AuditRecord } from '../types.ts';
import { canonicalText } from './canonical.ts';
import { concat, leafHash, sha256 } from './hash.ts';

/** Version tag inside every leaf, so a later leaf format can be told apart. */
export const LEAF_FORMAT = 'cellgate-audit-leaf/1';

/** Bytes of salt per committed value. */
const SALT_BYTES = 16;

/**
 * How each committed value of a leaf is opened: by key (`diff/<operation index>` or
 * `snapshot/<member>`), its salt (base64) while the value is stored, or `{ c: <commitment> }`
 * once an erasure removed value and salt.
 */
export type LeafOpenings = Record<string, string | { c: string }>;

/** A leaf as appended: its bytes, its RFC 6962 hash and the openings to keep beside it. */
export interface CommittedLeaf {
  data: Uint8Array;
  hash: Uint8Array;
  openings: LeafOpenings;
}

/** Why a stored record and its openings do not make a leaf (a sign of tampering). */
export class LeafMismatch extends Error {}

const encoder = new TextEncoder();

/** SHA-256(salt ‖ canonical JSON of value), base64. */
export function commitment(salt: Uint8Array, value: unknown): string {
  return bytesToBase64(sha256(concat([salt, encoder.encode(canonicalText(value))])));
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The committed places of a record: key, and the value now stored there (undefined when none). */
function committedPlaces(record: Pick<AuditRecord, 'diff' | 'snapshot'>): Array<[key: string, value: unknown, present: boolean]> {
  const places: Array<[string, unknown, boolean]> = [];
  if (Array.isArray(record.diff))
    record.diff.forEach((operation: unknown, index) => {
      if (isPlainObject(operation) && Object.hasOwn(operation, 'value')) places.push([`diff/${index}`, operation.value, true]);
    });
  if (isPlainObject(record.snapshot)) for (const [name, value] of Object.entries(record.snapshot)) places.push([`snapshot/${name}`, value, true]);
  return places;
}

/** Draws fresh salts for every committed value of `record` and makes its leaf. */
export function commitLeaf(record: AuditRecord): CommittedLeaf {
  const openings: LeafOpenings = {};
  for (const [key] of committedPlaces(record)) openings[key] = bytesToBase64(crypto.getRandomValues(new Uint8Array(SALT_BYTES)));
  const data = leafData(record, openings);
  return { data, hash: leafHash(data), openings };
}

/**
 * The commitment that stands for one erasable value in a leaf, checked against its opening (a
 * salt, or the commitment an erasure left). A module function, not a closure made per leaf: the
 * tsx-run host pays a rename for every named closure a request creates.
 */
function commitOpening(openings: LeafOpenings, used: Set<string>, key: string, value: unknown, present: boolean): string {
  const opening = openings[key];
  used.add(key);
  if (typeof opening === 'string') {
    if (!present) throw new LeafMismatch(`${key}: the value is missing`);
    return commitment(base64ToBytes(opening), value);
  }
  if (opening === undefined || typeof opening.c !== 'string') throw new LeafMismatch(`${key}: no salt for this value`);
  // Erased: only the placeholder the erasure writes may stand where the value was.
  if (present && !(key.startsWith('snapshot/') && value === '[REDACTED]')) throw new LeafMismatch(`${key}: a value where the erasure left none`);
  return opening.c;
}

/**
 * The leaf bytes of a stored record with its openings. Throws `LeafMismatch` when they do
 * not fit: a value without a salt, a salt without its value, or a value where an erasure left a
 * commitment.
 */
export function leafData(record: AuditRecord, openings: LeafOpenings): Uint8Array {
  const used = new Set<string>();
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(record)) {
    // null and absent are one: a column added later (null in older rows) leaves older leaves alone.
    if (value !== null && value !== undefined && name !== 'diff' && name !== 'snapshot') body[name] = value;
  }
  if (Array.isArray(record.diff)) {
    body.diff = record.diff.map((operation: unknown, index) => {
      if (!isPlainObject(operation)) return operation;
      const key = `diff/${index}`;
      const present = Object.hasOwn(operation, 'value');
      if (!present && openings[key] === undefined) return operation;
      const { value, ...rest } = operation;
      return { ...rest, valueCommitment: commitOpening(openings, used, key, value, present) };
    });
  } else if (record.diff !== null && record.diff !== undefined) body.diff = record.diff;
  if (isPlainObject(record.snapshot)) {
    const snapshot: Record<string, string> = {};
    for (const [name, value] of Object.entries(record.snapshot)) snapshot[name] = commitOpening(openings, used, `snapshot/${name}`, value, true);
    body.snapshot = snapshot;
  } else if (record.snapshot !== null && record.snapshot !== undefined) body.snapshot = record.snapshot;
  for (const key of Object.keys(openings)) if (!used.has(key)) throw new LeafMismatch(`${key}: a salt for a value that is not there`);
  return encoder.encode(canonicalText({ format: LEAF_FORMAT, record: body }));
}

/**
 * The openings after an erasure rewrote a record's change from `before` to `after`: each value it
 * removed (or replaced by `[REDACTED]`) gets its commitment in place of its salt.
 */
export function sealErased(
  before: Pick<AuditRecord, 'diff' | 'snapshot'>,
  after: Pick<AuditRecord, 'diff' | 'snapshot'>,
  openings: LeafOpenings,
): LeafOpenings {
  const sealed: LeafOpenings = { ...openings };
  const now = new Map(committedPlaces(after).map(([key, value]) => [key, value]));
  for (const [key, value] of committedPlaces(before)) {
    const salt = openings[key];
    if (typeof salt !== 'string') continue;
    const kept = now.has(key) && canonicalText(now.get(key)) === canonicalText(value);
    if (!kept) sealed[key] = { c: commitment(base64ToBytes(salt), value) };
  }
  return sealed;
}
