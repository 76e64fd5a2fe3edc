/**
 * The `logger` option with a real pino logger writing to a stream (docs/observability.md): the
 * reference host passes it to both halves, governed writes and conflicts reach it as structured
 * entries (tenant, workspace, resource type, record id, version, request and trace ids, never a
 * field value), and the default for unexpected failures stays one JSON line on stderr (covered in
 * test/unit/http/logging.test.ts).
 */
import { SignJWT } from 'jose';
import { createGovernedApi, memoryStorage } from 'cellgate';
import { createReferenceApp, DEMO_IDS, loadConfig } from 'cellgate/host';
import { describe, expect, it } from 'vitest';
import { cast, customer, demoEntity, ids, paths, SECRET, send } from '../governed/support.ts';
import { pinoInto } from './pino-sink.ts';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

describe('logger option', () => {
  it('governed writes and conflicts reach pino as structured entries with the trace id, never a value', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const api = createGovernedApi({
      storage: memoryStorage(),
      auth: { secret: SECRET },
      resources: [{ entity: demoEntity('customer') as never }],
      logger: pinoInto(lines),
    });
    await api.migrate();
    const { admin } = await cast();
    const created = await send(api, 'POST', paths.customers(), {
      token: admin,
      body: customer({ notes: 'private-note-5521' }),
      headers: { traceparent: TRACEPARENT },
    });
    const id = created.body.data.id as string;
    await send(api, 'PATCH', `${paths.customers()}/${id}`, { token: admin, body: { expectedVersion: 1, status: 'active' } });
    const stale = await send(api, 'PATCH', `${paths.customers()}/${id}`, { token: admin, body: { expectedVersion: 1, status: 'inactive' } });
    expect(stale.status).toBe(409);
    const entries = lines.map(({ level, msg, tenantId, workspaceId, resourceType, resourceId, version, traceId }) => ({
      level,
      msg,
      tenantId,
      workspaceId,
      resourceType,
      resourceId,
      version,
      traceId,
    }));
    const common = { tenantId: ids.tenant, workspaceId: ids.ws, resourceType: 'crm.Customer@v1', resourceId: id };
    expect(entries).toEqual([
      { level: 30, msg: 'entity.created', ...common, version: 1, traceId: TRACE_ID },
      { level: 30, msg: 'entity.updated', ...common, version: 2, traceId: null },
      { level: 40, msg: 'entity.conflict', ...common, version: 2, traceId: null },
    ]);
    expect(JSON.stringify(lines)).not.toContain('private-note-5521');
  });

  it('the reference host passes its logger to the governed half', async () => {
    const secret = 'reference-host-logger-secret-0123456789';
    const lines: Array<Record<string, unknown>> = [];
    const app = await createReferenceApp(loadConfig({ PORT: '0', DATABASE_URL: 'memory:', CELLGATE_JWT_SECRET: secret }), { logger: pinoInto(lines) });
    try {
      const token = await new SignJWT({ tenant_id: DEMO_IDS.tenant, roles: ['admin'], workspaces: { [DEMO_IDS.workspace]: ['admin'] } })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(ids.admin)
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(secret));
      const created = await send(app.handler, 'POST', paths.customers(DEMO_IDS.workspace), { token, body: customer() });
      expect(created.status).toBe(201);
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: 30,
          msg: 'entity.created',
          tenantId: DEMO_IDS.tenant,
          workspaceId: DEMO_IDS.workspace,
          resourceId: created.body.data.id,
          version: 1,
        }),
      );
    } finally {
      await app.close();
    }
  });
});
