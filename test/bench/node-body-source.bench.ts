/**
 * What the Node adapter's undici fast path saves per answer: getting the bytes of a plain
 * `new Response(json)` from undici's private state (after the feature test in
 * `adapters/node/buffered-body.ts`) against the public fallback, reading the body stream as
 * `writeResponse` does (`readIfComplete`). The floor is building the `Response` alone, measured in
 * the same run; the fast path is worth keeping while its cost over the floor stays well below the
 * stream read's. (Core JSON answers are light responses and skip both; this path serves handlers
 * that return a real `Response`.) Run with `npm run bench -- test/bench/node-body-source.bench.ts`.
 */
import { bench, describe } from 'vitest';
import { readIfComplete } from 'cellgate/adapters/node';
import { createSourceReader } from '../../adapters/node/buffered-body.ts';

const options = { time: 3000, warmupIterations: 2000 };
const text = JSON.stringify({ data: Array.from({ length: 20 }, (_, i) => ({ id: i, name: `Customer ${i}`, status: 'active' })) });
const source = createSourceReader();
const fastPath = source(new Response(text)) === text;
console.log(`[node-body-source] node ${process.version}: undici fast path ${fastPath ? 'on' : 'off (the stream path answers)'}`);

describe(`a ${text.length}-byte JSON Response`, () => {
  bench(
    'floor: new Response(text)',
    () => {
      new Response(text);
    },
    options,
  );
  // reason: off where the feature test refuses undici's private state (Node 24); the fallback is then the path.
  bench.skipIf(!fastPath)(
    'fast path: the source from undici state',
    () => {
      source(new Response(text));
    },
    options,
  );
  bench(
    'fallback: read the body stream',
    async () => {
      await readIfComplete(new Response(text).body!.getReader());
    },
    options,
  );
});
