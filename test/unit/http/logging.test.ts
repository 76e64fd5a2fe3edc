/**
 * Unexpected failures are visible (issue #12 item 12): the client sees a 500 with a correlation id
 * only; by default one JSON line with the same id, the method and path, and the error's name,
 * message and stack goes to stderr; a `logger` (a real pino logger here) or `onError` replaces it.
 * Both handlers: governed (a storage driver that fails) and contract (a docs asset loader that
 * fails).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createContractHandler, createGovernedResource, defineEntity, memoryStorage, stderrJsonLogger, type Logger, type StorageDriver } from 'cellgate';
import { toNodeHandler } from 'cellgate/adapters/node';
import { customer, demoEntity, mint, paths, SECRET } from '../../governed/support.ts';
import { pinoInto } from '../../observability/pino-sink.ts';

/** The demo customer entity, checked by `defineEntity` as an app would. */
const customerEntity = defineEntity(demoEntity('customer') as Parameters<typeof defineEntity>[0]);

/** A real memory driver whose transactions fail with an error no code path expects. */
function failingStorage(): StorageDriver {
  const storage = memoryStorage();
  return new Proxy(storage, {
    get(target, key, receiver) {
      if (key === 'transaction') {
        return () => Promise.reject(new TypeError('disk on fire (secret-ish detail)'));
      }
      const value = Reflect.get(target, key, receiver) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Captures what is written to stderr while `fn` runs. */
async function stderrOf(fn: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation(((chunk: string | Uint8Array) => {
    lines.push(
      ...String(chunk)
        .split('\n')
        .filter((line) => line !== ''),
    );
    return true;
  }) as typeof process.stderr.write);
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return lines;
}

async function createCustomer(
  handler: (request: Request) => Promise<Response>,
): Promise<{ status: number; body: Record<string, any>; header: string | null; text: string }> {
  const token = await mint({ roles: ['admin'] });
  const response = await handler(
    new Request(`http://test.local${paths.customers()}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(customer()),
    }),
  );
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as Record<string, any>, header: response.headers.get('x-correlation-id'), text };
}

afterEach(() => vi.restoreAllMocks());

describe('unexpected failures: governed handler', () => {
  it('by default: 500 with the correlation id only; one JSON line on stderr with the same id, route and stack', async () => {
    const resource = createGovernedResource({ entity: customerEntity, storage: failingStorage(), auth: { secret: SECRET } });
    let answer!: Awaited<ReturnType<typeof createCustomer>>;
    const lines = await stderrOf(async () => {
      answer = await createCustomer(resource);
    });
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ error: 'INTERNAL_ERROR', message: expect.any(String), details: { correlationId: answer.header } });
    expect(answer.text).not.toContain('disk on fire');
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]!) as Record<string, any>;
    expect(entry).toMatchObject({
      level: 50,
      correlationId: answer.header,
      method: 'POST',
      path: paths.customers(),
      err: { name: 'TypeError', message: 'disk on fire (secret-ish detail)' },
      msg: expect.stringContaining('unexpected failure'),
    });
    expect(entry.err.stack).toMatch(/TypeError: disk on fire[\s\S]*\n\s+at /);
    expect(Date.parse(entry.time)).not.toBeNaN();
  });

  it('a pino logger replaces the default: one error entry with the same correlation id and the stack; writes go to info', async () => {
    const logged: Array<Record<string, any>> = [];
    const logger = pinoInto(logged);
    const failing = createGovernedResource({ entity: customerEntity, storage: failingStorage(), auth: { secret: SECRET }, logger });
    let answer!: Awaited<ReturnType<typeof createCustomer>>;
    const lines = await stderrOf(async () => {
      answer = await createCustomer(failing);
    });
    expect(lines).toEqual([]);
    expect(answer.status).toBe(500);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      level: 50,
      correlationId: answer.header,
      method: 'POST',
      path: paths.customers(),
      err: { type: 'TypeError', message: 'disk on fire (secret-ish detail)' },
    });
    expect(logged[0]!.err.stack).toContain('disk on fire');

    // The same logger receives the write entries of a working resource at info (no field values).
    const working = createGovernedResource({ entity: customerEntity, storage: memoryStorage(), auth: { secret: SECRET }, logger });
    await working.migrate();
    expect((await createCustomer(working)).status).toBe(201);
    expect(logged[1]).toMatchObject({ level: 30, event: 'entity.created', msg: 'entity.created', resourceType: expect.any(String) });
    expect(JSON.stringify(logged[1])).not.toContain('ceo@acme.example');
  });

  it('onError replaces the default: the hook sees the error, stderr stays empty', async () => {
    const seen: unknown[] = [];
    const resource = createGovernedResource({
      entity: customerEntity,
      storage: failingStorage(),
      auth: { secret: SECRET },
      onError: (error) => seen.push(error),
    });
    const lines = await stderrOf(async () => {
      expect((await createCustomer(resource)).status).toBe(500);
    });
    expect(lines).toEqual([]);
    expect(seen).toHaveLength(1);
    expect((seen[0] as Error).message).toContain('disk on fire');
  });

  it('a throwing logger does not change the answer', async () => {
    const broken: Logger = {
      error: () => {
        throw new Error('logger down');
      },
      warn: () => undefined,
      info: () => undefined,
      debug: () => undefined,
    };
    const resource = createGovernedResource({ entity: customerEntity, storage: failingStorage(), auth: { secret: SECRET }, logger: broken });
    expect((await createCustomer(resource)).body.error).toBe('INTERNAL_ERROR');
  });

  it('refuses a logger that is neither a logger nor a function', () => {
    expect(() =>
      createGovernedResource({
        entity: customerEntity,
        storage: memoryStorage(),
        auth: { secret: SECRET },
        logger: { error: () => undefined } as unknown as Logger,
      }),
    ).toThrow(/logger/);
  });
});

describe('unexpected failures: contract handler', () => {
  const failingAssets = () => Promise.reject(new RangeError('asset disk gone'));

  it('by default writes one JSON line whose correlation id is the one the client got', async () => {
    const handler = createContractHandler({ docs: { assets: failingAssets } });
    let response!: Response;
    const lines = await stderrOf(async () => {
      response = await handler(new Request('http://test.local/api/docs/assets/swagger-ui.css?email=query-value'));
    });
    const body = (await response.json()) as { error: string; details: { correlationId: string } };
    expect(response.status).toBe(500);
    expect(body.error).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(body)).not.toContain('asset disk gone');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      correlationId: body.details.correlationId,
      method: 'GET',
      path: '/api/docs/assets/swagger-ui.css',
      err: { name: 'RangeError', message: 'asset disk gone', stack: expect.stringContaining('RangeError: asset disk gone') },
    });
    // The query string (which may carry personal data) is not logged.
    expect(lines[0]).not.toContain('query-value');
  });

  it('accepts a pino logger, and refuses a non-logger', async () => {
    const logged: Array<Record<string, any>> = [];
    const handler = createContractHandler({ docs: { assets: failingAssets }, logger: pinoInto(logged) });
    const lines = await stderrOf(async () => {
      expect((await handler(new Request('http://test.local/api/docs/assets/swagger-ui.css'))).status).toBe(500);
    });
    expect(lines).toEqual([]);
    expect(logged).toEqual([
      expect.objectContaining({ level: 50, err: expect.objectContaining({ type: 'RangeError', stack: expect.stringContaining('asset disk gone') }) }),
    ]);
    expect(() => createContractHandler({ logger: console.log as unknown as Logger })).toThrow(/options\.logger/);
  });
});

describe('unexpected failures: adapter last resort', () => {
  it('a handler that throws past its own choke point is logged by the node adapter (default: stderr)', async () => {
    const throwing = Object.assign(async () => Promise.reject(new Error('handler exploded')), {
      match: async () => Promise.reject(new Error('handler exploded')),
    });
    const { createServer } = await import('node:http');
    const server = createServer(toNodeHandler(throwing));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as import('node:net').AddressInfo;
    try {
      let response!: Response;
      const lines = await stderrOf(async () => {
        response = await fetch(`http://127.0.0.1:${port}/anything`);
        await response.text().then((text) => expect(text).not.toContain('exploded'));
      });
      expect(response.status).toBe(500);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(lines.map((line) => JSON.parse(line) as Record<string, any>)).toEqual([
        expect.objectContaining({ path: '/anything', err: expect.objectContaining({ message: 'handler exploded' }) }),
      ]);
    } finally {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    }
  });
});

describe('stderrJsonLogger', () => {
  it('writes one parseable line even for circular members, and caps long texts', async () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const lines = await stderrOf(async () => {
      stderrJsonLogger.error({ circular }, 'one');
      stderrJsonLogger.warn({ err: new Error('x'.repeat(100_000)) }, 'two');
      stderrJsonLogger.debug({}, 'silent');
    });
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 50, msg: 'one', unserializable: true });
    const second = JSON.parse(lines[1]!) as { err: { message: string } };
    expect(second.err.message.length).toBeLessThan(20_000);
    expect(second.err.message).toMatch(/more characters\)$/);
  });
});
