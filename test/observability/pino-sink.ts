/** A real pino logger writing into an array: each JSON line pino writes, parsed (a line that is not JSON fails the test). */
import { Writable } from 'node:stream';
import pino from 'pino';
import type { Logger } from 'cellgate';

/** A pino logger at level `debug` whose lines land, parsed, in `lines`. */
export function pinoInto(lines: Array<Record<string, unknown>>): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return pino({ level: 'debug' }, sink);
}
