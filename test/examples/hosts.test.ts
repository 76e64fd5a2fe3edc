/**
 * Starts each framework host as its own process (`npx tsx examples/<host>/main.ts`, PORT=0,
 * DATABASE_URL=memory:), waits for `listening on http://…`, runs the host's smoke script against
 * it, then stops it with SIGTERM and expects a clean exit.
 */
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { runSmoke, startHost } from './support.ts';

describe.concurrent.each(['express', 'fastify', 'hono', 'next'])('examples/%s-host', (name) => {
  it('starts, passes its smoke check, serves its own route, and stops cleanly on SIGTERM', async () => {
    const host = await startHost(`examples/${name}-host/main.ts`);
    try {
      const smoke = await runSmoke(`examples/${name}-host/smoke.ts`, host.url);
      expect(smoke.output).toContain('ok  governed create 201');
      expect(smoke.code, smoke.output).toBe(0);
      expect(await (await fetch(`${host.url}/hello`)).json()).toEqual({ from: name });
      if (name === 'express') {
        // The smoke script is shared; proving once that it fails on wrong answers is enough.
        const wrong = await runSmoke(`examples/${name}-host/smoke.ts`, `${host.url}/not-the-root`);
        expect(wrong.code).toBe(1);
      }
    } finally {
      host.child.kill('SIGTERM');
    }
    const [code] = (await once(host.child, 'exit')) as [number | null];
    expect(code, host.output()).toBe(0);
    expect(host.output()).toContain('stopped');
  }, 600_000); // next-host builds its app on first start (cached in examples/next-host/.next)
});
