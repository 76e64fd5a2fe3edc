/**
 * PostgreSQL log sequence numbers as consistency tokens (B37): `pg_current_wal_insert_lsn()`
 * after a commit, `pg_last_wal_replay_lsn()` on a replica. The text form is two hex numbers of at
 * most 8 digits (`16/B374D848`); compared as one 64-bit number.
 */
import { CONSISTENCY_TOKEN_MAX_LENGTH } from '../../../limits.ts';

const LSN = /^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/i;

/** Whether `value` has the shape of an LSN (length capped before the pattern runs). */
export function isLsn(value: string): boolean {
  return value.length <= CONSISTENCY_TOKEN_MAX_LENGTH && LSN.test(value);
}

/** The LSN as a number, for comparison; call only on a value {@link isLsn} accepted. */
export function lsnValue(lsn: string): bigint {
  const [high, low] = lsn.split('/') as [string, string];
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** The later of two LSNs (either may be absent). */
export function laterLsn(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return lsnValue(b) > lsnValue(a) ? b : a;
}
