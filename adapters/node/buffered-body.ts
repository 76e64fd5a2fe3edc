/**
 * The string or bytes a `Response` was built from, read without touching its stream.
 *
 * Why: undici (Node's `Response`) keeps the source a body was made from next to the
 * `ReadableStream` it creates for it. Writing that source in one `end()` skips a stream read and a
 * buffer transfer per answer, which the adapter benchmark (`test/bench/adapters.ts`) measures
 * against the stream path. No public API gives the source, so this reads undici's private state
 * (the own property keyed `Symbol(state)`): an implementation detail that a Node release may
 * change. It is therefore feature-tested once, on real `Response`s, before it is trusted; if the
 * probe fails (a renamed key, a different shape, private class fields), every answer takes the
 * public path instead: reading the body stream (`readIfComplete` in `response.ts`), which
 * produces the same bytes, only slower.
 */

interface UndiciBodyState {
  body?: { source?: unknown; stream?: ReadableStream | null } | null;
}

/** Reads the untouched in-memory source of a `Response` body; `undefined` when there is none to trust. */
export type SourceReader = (response: Response) => string | Uint8Array | undefined;

/** The symbol under which undici keeps a `Response`'s state, or `null` when it has none (any more). */
export function undiciStateKey(response: Response): symbol | null {
  return Object.getOwnPropertySymbols(response).find((symbol) => symbol.description === 'state') ?? null;
}

/** True when `reader` gives back exactly what real responses were built from, and nothing for a body in use. */
function probe(reader: SourceReader): boolean {
  try {
    const text = 'cellgate: probe é';
    const bytes = new Uint8Array([99, 101, 108, 108]);
    const fromBytes = reader(new Response(bytes));
    const locked = new Response('locked');
    locked.body?.getReader();
    return (
      reader(new Response(text)) === text &&
      fromBytes instanceof Uint8Array &&
      fromBytes.length === bytes.length &&
      fromBytes.every((byte, i) => byte === bytes[i]) &&
      reader(locked) === undefined &&
      reader(new Response(new ReadableStream())) === undefined
    );
  } catch {
    return false;
  }
}

/**
 * A {@link SourceReader} over the private state that `findKey` locates, if the feature test passes;
 * otherwise one that always answers `undefined` (the stream path). The key is looked up once per
 * `Response` class.
 *
 * @example
 * const source = createSourceReader();
 * source(new Response('{"ok":true}')); // '{"ok":true}' on Node's undici, undefined where it cannot be trusted
 */
export function createSourceReader(findKey: (response: Response) => symbol | null = undiciStateKey): SourceReader {
  const keys = new WeakMap<object, symbol | null>();
  const read: SourceReader = (response) => {
    const type = Object.getPrototypeOf(response) as object;
    let key = keys.get(type);
    if (key === undefined) {
      key = findKey(response);
      keys.set(type, key);
    }
    if (!key) return undefined;
    const body = (response as unknown as Record<symbol, UndiciBodyState | undefined>)[key]?.body;
    const source = body?.source;
    if (!body?.stream || body.stream.locked || response.bodyUsed) return undefined;
    return typeof source === 'string' || source instanceof Uint8Array ? source : undefined;
  };
  return probe(read) ? read : () => undefined;
}
