/**
 * What the benchmark server process hands the Next routes (they run in the same process): the
 * handler the adapter route serves and the work the native routes do by hand.
 */
import type { FetchHandler } from 'cellgate';

/** The native PATCH's answer: the record's text with its ETag and correlation id. */
export interface NativePatchAnswer {
  etag: string;
  correlationId: string;
  text: string;
}

/** The slot's contents. */
export interface BenchSlot {
  handler: FetchHandler;
  primitives: Uint8Array;
  patchNatively(id: string, body: unknown, headers: { authorization?: string; 'if-match'?: string; 'user-agent'?: string }): Promise<NativePatchAnswer>;
}

/** Global slot the benchmark server fills before the first request. */
export const BENCH_SLOT = Symbol.for('cellgate.bench.next');

/** The slot (throws when the server did not fill it). */
export function benchSlot(): BenchSlot {
  const slot = (globalThis as Record<symbol, BenchSlot | undefined>)[BENCH_SLOT];
  if (!slot) throw new Error('the benchmark server did not fill the Next bench slot');
  return slot;
}
