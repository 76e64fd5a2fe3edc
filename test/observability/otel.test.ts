/**
 * OpenTelemetry spans (docs/observability.md): with the SDK's in-memory exporter registered as the
 * global tracer provider, every governed operation, contract route and MCP tool call makes one
 * span with the HTTP semantic-convention attributes and cellgate's (resource type, operation,
 * version, outcome); an incoming `traceparent` is the parent (real node server on 127.0.0.1),
 * a host's active span is the parent when a context manager is registered, and audit records
 * and events carry the span's trace id. Without an SDK, nothing changes.
 *
 * `@opentelemetry/context-async-hooks` is not installed here: the context manager of the
 * "active span" test is a ten-line AsyncLocalStorage one written below (the interface is four
 * methods); every other test runs with no context manager, so cellgate's explicit context passing
 * is what is tested there.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type ContextManager } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { composeHandlers, createContractHandler, createGovernedApi, memoryStorage } from 'cellgate';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cast, customer, demoEntity, ids, paths, SECRET, send, serve } from '../governed/support.ts';
import { currentTracing, remoteParentOf } from '../../src/telemetry/otel-globals.ts';
import { customerInput, setup, wsCtx } from '../unit/governed/core-fixtures.ts';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_SPAN_ID}-01`;
/** A value only the records hold: it must never reach a span. */
const SECRET_VALUE = 'Zorblax-PII-7731';

/** An AsyncLocalStorage context manager (what `@opentelemetry/context-async-hooks` provides). */
class LocalContextManager implements ContextManager {
  readonly #storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.#storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(ctx: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return this.#storage.run(ctx, () => fn.apply(thisArg, args));
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.#storage.disable();
    return this;
  }
}

function buildApi() {
  const storage = memoryStorage();
  const api = createGovernedApi({ storage, auth: { secret: SECRET }, resources: [{ entity: demoEntity('customer') as never }] });
  return { storage, api };
}

const attributesOf = (span: ReadableSpan) => span.attributes as Record<string, unknown>;

describe('without an OpenTelemetry SDK', () => {
  it('creates no span and keeps the traceparent trace id in the audit record', async () => {
    expect(currentTracing()).toBeUndefined();
    const { api, storage } = buildApi();
    await api.migrate();
    const { admin } = await cast();
    const created = await send(api, 'POST', paths.customers(), { token: admin, body: customer(), headers: { traceparent: TRACEPARENT } });
    expect(created.status).toBe(201);
    const plain = await send(api, 'POST', paths.customers(), { token: admin, body: customer({ name: 'Plain' }) });
    const audit = await storage.listAudit({ tenantId: ids.tenant, limit: 10 });
    const byRecord = new Map(audit.records.map((record) => [record.resourceId, record.traceId]));
    expect(byRecord.get(created.body.data.id)).toBe(TRACE_ID);
    expect(byRecord.get(plain.body.data.id)).toBeNull();
  });
});

describe('with the SDK registered', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  let tokens: Awaited<ReturnType<typeof cast>>;

  beforeAll(async () => {
    expect(trace.setGlobalTracerProvider(provider)).toBe(true);
    tokens = await cast();
  });
  afterAll(async () => {
    trace.disable();
    await provider.shutdown();
  });
  beforeEach(() => exporter.reset());

  const finished = () => exporter.getFinishedSpans();
  const only = (name: string) => {
    const spans = finished().filter((span) => span.name === name);
    expect(spans.map((span) => span.name)).toEqual([name]);
    return spans[0]!;
  };

  it('makes one span per governed operation with resource type, operation, version and outcome', async () => {
    const { api } = buildApi();
    await api.migrate();
    const { admin } = tokens;
    const collection = paths.customers();
    const route = '/v1/workspaces/{workspaceId}/customers';
    const created = await send(api, 'POST', collection, { token: admin, body: customer({ notes: SECRET_VALUE, email: 'zorblax@secret.example' }) });
    const id = created.body.data.id as string;
    await send(api, 'GET', `${collection}/${id}`, { token: admin });
    await send(api, 'GET', `${collection}?q=${SECRET_VALUE}`, { token: admin });
    await send(api, 'PATCH', `${collection}/${id}`, { token: admin, body: { expectedVersion: 1, status: 'active' } });
    const stale = await send(api, 'PATCH', `${collection}/${id}`, { token: admin, body: { expectedVersion: 1, notes: SECRET_VALUE } });
    expect(stale.status).toBe(409);
    await send(api, 'DELETE', `${collection}/${id}`, { token: admin, headers: { 'if-match': '"2"' } });
    const restored = await send(api, 'POST', `${collection}/${id}/rollback`, { token: admin, body: { targetVersion: 2 } });
    expect(restored.status).toBe(200);
    await send(api, 'GET', `${collection}/${id}/versions`, { token: admin });
    const audit = await send(api, 'GET', '/v1/audit', { token: admin });
    await send(api, 'GET', `/v1/audit/${audit.body.data[0].id}`, { token: admin });
    await send(api, 'GET', '/v1/events', { token: admin });

    const summary = finished().map((span) => {
      const a = attributesOf(span);
      return [span.name, a['cellgate.operation'], a['http.response.status_code'], a['cellgate.outcome'], a['cellgate.record.version']];
    });
    expect(summary).toEqual([
      [`POST ${route}`, 'create', 201, 'ok', 1],
      [`GET ${route}/{id}`, 'get', 200, 'ok', 1],
      [`GET ${route}`, 'list', 200, 'ok', undefined],
      [`PATCH ${route}/{id}`, 'update', 200, 'ok', 2],
      [`PATCH ${route}/{id}`, 'update', 409, 'CONFLICT', undefined],
      [`DELETE ${route}/{id}`, 'delete', 200, 'ok', 3],
      [`POST ${route}/{id}/rollback`, 'rollback', 200, 'ok', 4],
      [`GET ${route}/{id}/versions`, 'versions', 200, 'ok', undefined],
      ['GET /v1/audit', 'listAudit', 200, 'ok', undefined],
      ['GET /v1/audit/{auditId}', 'getAudit', 200, 'ok', undefined],
      ['GET /v1/events', 'events', 200, 'ok', undefined],
    ]);
    for (const span of finished()) {
      expect(span.instrumentationScope.name).toBe('cellgate');
      // No host instrumentation and no traceparent: cellgate's span is the entry of a new trace.
      expect(span.kind).toBe(SpanKind.SERVER);
      expect(span.parentSpanContext).toBeUndefined();
      expect(attributesOf(span)['http.request.method']).toBe(span.name.split(' ')[0]);
      expect(attributesOf(span)['http.route']).toBe(span.name.split(' ')[1]);
    }
    const crud = finished().filter((span) => String(attributesOf(span)['http.route']).includes('customers'));
    expect(crud.every((span) => attributesOf(span)['cellgate.resource.type'] === 'crm.Customer@v1')).toBe(true);
    const conflict = finished()[4]!;
    expect(conflict.status).toEqual({ code: SpanStatusCode.ERROR, message: 'CONFLICT' });
    expect(attributesOf(conflict)['error.type']).toBe('CONFLICT');
    expect(finished()[0]!.status.code).toBe(SpanStatusCode.UNSET);
    // No value of a record (nor the query string that searched for one) reaches a span.
    const everything = JSON.stringify(finished().map((span) => [span.name, span.attributes, span.status, span.events]));
    expect(everything).not.toContain(SECRET_VALUE);
    expect(everything).not.toContain('zorblax@secret.example');
    expect(everything).not.toContain(id);
  });

  it('makes one span per operation called in code, and the audit record carries its trace id', async () => {
    const { service, storage } = await setup();
    // No request metadata (the fixture's carries a trace id of its own, which would win).
    const ctx = { ...wsCtx(), meta: undefined };
    const created = await service.create(ctx, customerInput);
    await service.update(ctx, created.data.id, { expectedVersion: 1, status: 'active' });
    await expect(service.update(ctx, created.data.id, { expectedVersion: 1, status: 'lead' })).rejects.toThrow();
    await service.list(ctx);
    const summary = finished().map((span) => {
      const a = attributesOf(span);
      return [span.name, span.kind, a['cellgate.operation'], a['cellgate.resource.type'], a['cellgate.outcome'], a['cellgate.record.version']];
    });
    const type = service.resourceType;
    expect(summary).toEqual([
      [`cellgate create ${type}`, SpanKind.INTERNAL, 'create', type, 'ok', 1],
      [`cellgate update ${type}`, SpanKind.INTERNAL, 'update', type, 'ok', 2],
      [`cellgate update ${type}`, SpanKind.INTERNAL, 'update', type, 'CONFLICT', undefined],
      [`cellgate list ${type}`, SpanKind.INTERNAL, 'list', type, 'ok', undefined],
    ]);
    const audit = await storage.listAudit({ tenantId: ctx.actor.tenantId, limit: 10 });
    expect(audit.records.map((record) => record.traceId).reverse()).toEqual(
      finished()
        .slice(0, 2)
        .map((span) => span.spanContext().traceId),
    );
  });

  it('gives failures before the operation (authentication, validation) their error code', async () => {
    const { api } = buildApi();
    await api.migrate();
    const unauthenticated = await send(api, 'GET', paths.customers());
    expect(unauthenticated.status).toBe(401);
    const invalid = await send(api, 'POST', paths.customers(), { token: tokens.admin, body: { name: 1 } });
    expect(invalid.status).toBe(400);
    expect(finished().map((span) => [attributesOf(span)['cellgate.outcome'], span.status.message])).toEqual([
      ['UNAUTHENTICATED', 'UNAUTHENTICATED'],
      ['VALIDATION_ERROR', 'VALIDATION_ERROR'],
    ]);
  });

  it('honours an incoming traceparent over real HTTP, and the audit record and event carry its trace id', async () => {
    const { api, storage } = buildApi();
    await api.migrate();
    const server = await serve(api);
    try {
      const created = await send(server.url, 'POST', paths.customers(), { token: tokens.admin, body: customer(), headers: { traceparent: TRACEPARENT } });
      expect(created.status).toBe(201);
      const span = only('POST /v1/workspaces/{workspaceId}/customers');
      expect(span.spanContext().traceId).toBe(TRACE_ID);
      expect(span.parentSpanContext).toMatchObject({ traceId: TRACE_ID, spanId: PARENT_SPAN_ID, isRemote: true });
      expect(span.kind).toBe(SpanKind.SERVER);
      const audit = await storage.listAudit({ tenantId: ids.tenant, limit: 10 });
      expect(audit.records.map((record) => record.traceId)).toEqual([TRACE_ID]);
      const events = await send(server.url, 'GET', '/v1/events', { token: tokens.admin });
      expect(events.body.data.map((event: { traceId: string }) => event.traceId)).toEqual([TRACE_ID]);

      // Without a traceparent the span starts a trace, and the audit record names that trace.
      exporter.reset();
      const plain = await send(server.url, 'POST', paths.customers(), { token: tokens.admin, body: customer({ name: 'Second' }) });
      const own = only('POST /v1/workspaces/{workspaceId}/customers');
      expect(own.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(own.spanContext().traceId).not.toBe(TRACE_ID);
      const second = await storage.listAudit({ tenantId: ids.tenant, resourceId: plain.body.data.id, limit: 1 });
      expect(second.records[0]!.traceId).toBe(own.spanContext().traceId);
    } finally {
      await server.close();
    }
  });

  it('ignores a malformed traceparent', () => {
    expect(remoteParentOf(TRACEPARENT)).toMatchObject({ traceId: TRACE_ID, spanId: PARENT_SPAN_ID, traceFlags: 1 });
    for (const bad of [
      `00-${'0'.repeat(32)}-${PARENT_SPAN_ID}-01`,
      `00-${TRACE_ID}-${'0'.repeat(16)}-01`,
      `ff-${TRACE_ID}-${PARENT_SPAN_ID}-01`,
      `00-${TRACE_ID.toUpperCase()}-${PARENT_SPAN_ID}-01`,
      `${TRACEPARENT}-extra`,
      'x'.repeat(10_000),
    ]) {
      expect(remoteParentOf(bad)).toBeUndefined();
    }
    // A later version may append fields.
    expect(remoteParentOf(`01-${TRACE_ID}-${PARENT_SPAN_ID}-01-future`)).toMatchObject({ traceId: TRACE_ID });
  });

  it('uses the active span of host instrumentation as the parent (context manager registered)', async () => {
    const manager = new LocalContextManager();
    expect(context.setGlobalContextManager(manager)).toBe(true);
    try {
      const { api } = buildApi();
      await api.migrate();
      const host = trace.getTracer('host').startSpan('host request', { kind: SpanKind.SERVER });
      const answer = await context.with(trace.setSpan(context.active(), host), () =>
        send(api, 'POST', paths.customers(), { token: tokens.admin, body: customer(), headers: { traceparent: TRACEPARENT } }),
      );
      host.end();
      expect(answer.status).toBe(201);
      const span = only('POST /v1/workspaces/{workspaceId}/customers');
      // The host already made the server span (from the same traceparent, had it extracted it): cellgate's is its child.
      expect(span.parentSpanContext?.spanId).toBe(host.spanContext().spanId);
      expect(span.spanContext().traceId).toBe(host.spanContext().traceId);
      expect(span.kind).toBe(SpanKind.INTERNAL);
    } finally {
      context.disable();
    }
  });

  it('makes spans for contract routes and for MCP tool calls, the tool span a child of the request span', async () => {
    const handler = composeHandlers(createContractHandler());
    const server = await serve(handler);
    try {
      const found = await fetch(`${server.url}/api/primitives/does-not-exist`, { headers: { traceparent: TRACEPARENT } });
      expect(found.status).toBe(404);
      const missing = only('GET /api/primitives/{key}');
      expect(attributesOf(missing)).toMatchObject({
        'http.route': '/api/primitives/{key}',
        'http.response.status_code': 404,
        'cellgate.outcome': 'NOT_FOUND',
        'cellgate.operation': 'getPrimitive',
      });
      expect(missing.status.code).toBe(SpanStatusCode.ERROR);
      expect(missing.spanContext().traceId).toBe(TRACE_ID);
      await fetch(`${server.url}/api/primitives`);
      expect(attributesOf(only('GET /api/primitives'))['cellgate.outcome']).toBe('ok');

      exporter.reset();
      const client = new Client({ name: 'otel-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
      try {
        const result = await client.callTool({ name: 'list_primitives', arguments: {} });
        expect(result.isError).toBeFalsy();
        const failed = await client.callTool({ name: 'get_primitive_contract', arguments: { primitive: 'does-not-exist' } });
        expect(failed.isError).toBe(true);
      } finally {
        await client.close();
      }
      const tool = only('tools/call list_primitives');
      expect(attributesOf(tool)).toMatchObject({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'list_primitives', 'cellgate.outcome': 'ok' });
      const failedTool = only('tools/call get_primitive_contract');
      expect(failedTool.status).toEqual({ code: SpanStatusCode.ERROR, message: 'NOT_FOUND' });
      const posts = finished().filter((span) => span.name === 'POST /mcp');
      expect(posts.length).toBeGreaterThanOrEqual(2);
      for (const child of [tool, failedTool]) {
        const parent = posts.find((post) => post.spanContext().spanId === child.parentSpanContext?.spanId);
        expect(parent, child.name).toBeDefined();
        expect(child.spanContext().traceId).toBe(parent!.spanContext().traceId);
      }
    } finally {
      await server.close();
    }
  });
});
