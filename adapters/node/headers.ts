/**
 * `Headers` over a Node request, lazily: `get`/`has` read Node's already-parsed header object;
 * anything that needs the whole list (iteration, `append`, `set`, …) first copies the raw headers
 * in with `append`, so repeated headers keep every value, then uses the native implementation.
 */
import type { IncomingMessage } from 'node:http';

/** Headers answered from Node's parsed header object until something needs the full list. */
export class NodeHeaders extends Headers {
  #incoming: IncomingMessage | undefined;
  #override: [string, string] | undefined;

  /** `override`: one header to answer instead of the request's (a re-serialised body's length). */
  constructor(incoming: IncomingMessage, override?: [string, string]) {
    super();
    this.#incoming = incoming;
    this.#override = override;
  }

  #fill(): void {
    const incoming = this.#incoming;
    if (!incoming) return;
    this.#incoming = undefined;
    const raw = incoming.rawHeaders;
    const skip = this.#override?.[0];
    for (let i = 0; i < raw.length; i += 2) {
      if (skip !== undefined && raw[i]!.toLowerCase() === skip) continue;
      // Invalid values (a client may send anything) are dropped rather than failing the request.
      try {
        super.append(raw[i]!, raw[i + 1]!);
      } catch {}
    }
    if (this.#override) super.set(this.#override[0], this.#override[1]);
  }

  override get(name: string): string | null {
    if (this.#incoming) {
      const lower = name.toLowerCase();
      if (lower === this.#override?.[0]) return this.#override[1];
      const value = this.#incoming.headers[lower];
      if (typeof value === 'string') return value;
      if (value === undefined) return null;
    }
    this.#fill();
    return super.get(name);
  }

  override has(name: string): boolean {
    return this.get(name) !== null;
  }

  // Every other member needs the full list: copy the raw headers in once, then use the native one.
  override append(name: string, value: string): void {
    this.#fill();
    super.append(name, value);
  }

  override set(name: string, value: string): void {
    this.#fill();
    super.set(name, value);
  }

  override delete(name: string): void {
    this.#fill();
    super.delete(name);
  }

  override getSetCookie(): string[] {
    this.#fill();
    return super.getSetCookie();
  }

  override forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    this.#fill();
    super.forEach(callback, thisArg);
  }

  override entries(): HeadersIterator<[string, string]> {
    this.#fill();
    return super.entries();
  }

  override keys(): HeadersIterator<string> {
    this.#fill();
    return super.keys();
  }

  override values(): HeadersIterator<string> {
    this.#fill();
    return super.values();
  }

  override [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.entries();
  }
}
