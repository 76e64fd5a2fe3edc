/**
 * `toNextRouteHandlers` with a handler factory: nothing is built when the route file loads (what
 * `next build` does), the factory runs once for concurrent first requests, a failing factory
 * answers the envelope 500 (reported to `onError`) and is called again by the next request.
 * `test/docs/next-build.test.ts` builds a real Next app from the README's route file.
 */
import { createContractHandler, type FetchHandler } from 'cellgate';
import { toNextRouteHandlers } from 'cellgate/adapters/next';
import { describe, expect, it } from 'vitest';

const health = () => new Request('http://localhost/health');

describe('toNextRouteHandlers with a factory', () => {
  it('builds nothing until the first request, then builds once for every request', async () => {
    let calls = 0;
    const routes = toNextRouteHandlers(async () => {
      calls += 1;
      return createContractHandler();
    });
    expect(calls).toBe(0);
    const answers = await Promise.all([routes.GET(health()), routes.HEAD(new Request('http://localhost/health', { method: 'HEAD' })), routes.GET(health())]);
    expect(answers.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(await answers[0]!.json()).toEqual({ status: 'ok' });
    expect(await answers[1]!.text()).toBe('');
    expect((await routes.POST(new Request('http://localhost/api/validate/manifest', { method: 'POST', body: '{' }))).status).toBe(415);
    expect(calls).toBe(1);
  });

  it('takes a factory that answers the handler at once', async () => {
    const routes = toNextRouteHandlers(() => createContractHandler());
    expect((await routes.GET(health())).status).toBe(200);
  });

  it('answers the envelope 500 while the factory fails, reports why, and builds on a later request', async () => {
    const reported: unknown[] = [];
    let secret: string | undefined;
    let calls = 0;
    const routes = toNextRouteHandlers(
      async (): Promise<FetchHandler> => {
        calls += 1;
        if (secret === undefined) throw new Error('auth: give exactly one of secret, publicKey or jwksUrl');
        return createContractHandler();
      },
      { onError: (error) => reported.push(error) },
    );
    const failed = await routes.GET(health());
    expect(failed.status).toBe(500);
    const body = await failed.json();
    expect(body).toEqual({ error: 'INTERNAL_ERROR', message: expect.any(String), details: { correlationId: expect.any(String) } });
    expect(JSON.stringify(body)).not.toContain('secret');
    expect(reported).toEqual([expect.objectContaining({ message: expect.stringContaining('auth: give exactly one of secret') })]);
    secret = 'set at run time';
    expect((await routes.GET(health())).status).toBe(200);
    expect((await routes.GET(health())).status).toBe(200);
    expect(calls).toBe(2);
  });

  it('answers a real Response of the runtime, which Next serves as it is', async () => {
    const routes = toNextRouteHandlers(async () => createContractHandler());
    for (const response of [await routes.GET(health()), await routes.GET(new Request('http://localhost/nowhere'))]) {
      expect(Object.getPrototypeOf(response)).toBe(Response.prototype);
    }
  });
});
