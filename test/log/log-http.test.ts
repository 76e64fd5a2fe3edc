import { describe, expect, it } from 'vitest';
import { createGovernedApi, generateNoteKey, noteSigner, verifyProofBundle, type LogCheckpoint } from 'cellgate';
import { ORDER_DOCUMENT } from '../events/support.ts';
import { expectError, ids, mint, SECRET, send, serve } from '../governed/support.ts';
import { httpDrivers } from '../storage/http-drivers.ts';
import { checkConsistency, checkInclusion, openCheckpoint } from './independent-verifier.ts';

const drivers = await httpDrivers('log-http');
const b = (text: string) => Buffer.from(text, 'base64');

for (const driver of drivers) {
  describe.skipIf(Boolean(driver.skip))(`verifiable log over HTTP on ${driver.name}${driver.skip ? ` (skipped: ${driver.skip})` : ''}`, () => {
    it('serves checkpoints and proofs that an independent RFC 6962 verifier accepts', async () => {
      const { signerKey, verifierKey } = await generateNoteKey('audit.test');
      const sunk: LogCheckpoint[] = [];
      const storage = driver.create();
      const api = createGovernedApi({
        storage,
        auth: { secret: SECRET },
        resources: [ORDER_DOCUMENT],
        log: { signer: await noteSigner(signerKey), origin: 'audit.test', everyLeaves: 5, sink: (checkpoint) => void sunk.push(checkpoint) },
      });
      await api.migrate();
      const server = await serve(api);
      try {
        const tenant = crypto.randomUUID();
        const token = await mint({ sub: ids.admin, tenant, roles: ['admin'], workspaces: { [ids.ws]: ['admin'] }, permissions: ['audit:read'] });
        const orders = `/v1/workspaces/${ids.ws}/orders`;
        const created = await send(server.url, 'POST', orders, { token, body: { title: 'first', amount: 1 } });
        expect(created.status).toBe(201);
        const first = await send(server.url, 'GET', '/v1/audit/checkpoint', { token });
        expect(first.status).toBe(200);
        expect(first.headers.get('content-type')).toMatch(/^text\/plain/);
        expect(first.headers.get('cache-control')).toBe('no-store');
        const one = openCheckpoint(first.text, verifierKey)!;
        expect(one).toMatchObject({ origin: `audit.test/${tenant}`, size: 1 });

        for (let i = 0; i < 6; i++) expect((await send(server.url, 'POST', orders, { token, body: { title: `o${i}`, amount: i } })).status).toBe(201);
        const later = openCheckpoint((await send(server.url, 'GET', '/v1/audit/checkpoint', { token })).text, verifierKey)!;
        expect(later.size).toBe(7);
        // The write-triggered checkpoint (every 5 leaves) and the requested ones reached the sink.
        expect(sunk.map((checkpoint) => checkpoint.size)).toEqual(expect.arrayContaining([1, 7]));

        const consistency = await send(server.url, 'GET', '/v1/audit/proof?from=1&to=7', { token });
        expect(consistency.body.data.from).toBe(1);
        expect(checkConsistency(1, 7, one.root, later.root, consistency.body.data.hashes.map(b))).toBe(true);
        expect(checkConsistency(1, 7, later.root, one.root, consistency.body.data.hashes.map(b))).toBe(false);

        const audit = await send(server.url, 'GET', '/v1/audit?limit=100', { token });
        const records = audit.body.data as Array<{ id: string }>;
        expect(records).toHaveLength(7);
        for (const record of records) {
          const proof = await send(server.url, 'GET', `/v1/audit/${record.id}/proof?size=7`, { token });
          expect(proof.status).toBe(200);
          const { leafIndex, treeSize, leafHash, hashes } = proof.body.data;
          expect(treeSize).toBe(7);
          expect(checkInclusion(leafIndex, 7, b(leafHash), hashes.map(b), later.root)).toBe(true);
        }
        const bundle = await send(server.url, 'GET', `/v1/audit/${records[3]!.id}/bundle`, { token });
        expect(bundle.status).toBe(200);
        expect(await verifyProofBundle(bundle.body.data, verifierKey)).toEqual({ ok: true });
        const forged = structuredClone(bundle.body.data);
        forged.record.actorId = 'someone else';
        expect((await verifyProofBundle(forged, verifierKey)).ok).toBe(false);
        const head = await fetch(`${server.url}/v1/audit/checkpoint`, { method: 'HEAD', headers: { authorization: `Bearer ${token}` } });
        expect(head.status).toBe(200);
        expect(await head.text()).toBe('');
      } finally {
        await server.close();
        await storage.close();
      }
    });

    it('answers mistakes with the error envelope: audit:read, another tenant, sizes past the tree, malformed parameters', async () => {
      const { signerKey } = await generateNoteKey('audit.test');
      const storage = driver.create();
      const api = createGovernedApi({ storage, auth: { secret: SECRET }, resources: [ORDER_DOCUMENT], log: { signer: await noteSigner(signerKey) } });
      await api.migrate();
      try {
        const tenant = crypto.randomUUID();
        const token = await mint({ sub: ids.admin, tenant, roles: ['admin'], workspaces: { [ids.ws]: ['admin'] }, permissions: ['audit:read'] });
        const other = await mint({
          sub: ids.admin,
          tenant: crypto.randomUUID(),
          roles: ['admin'],
          workspaces: { [ids.ws]: ['admin'] },
          permissions: ['audit:read'],
        });
        const noRead = await mint({ sub: ids.admin, tenant, roles: ['admin'], workspaces: { [ids.ws]: ['admin'] } });
        await send(api, 'POST', `/v1/workspaces/${ids.ws}/orders`, { token, body: { title: 'x', amount: 1 } });
        const [record] = (await send(api, 'GET', '/v1/audit', { token })).body.data;
        expectError(await send(api, 'GET', '/v1/audit/checkpoint', { token: noRead }), 403, 'FORBIDDEN');
        expectError(await send(api, 'GET', `/v1/audit/${record.id}/proof`, { token: other }), 404, 'NOT_FOUND');
        expectError(await send(api, 'GET', `/v1/audit/${record.id}/bundle`, { token: other }), 404, 'NOT_FOUND');
        expectError(await send(api, 'GET', `/v1/audit/${record.id}/proof?size=2`, { token }), 400, 'VALIDATION_ERROR');
        expectError(await send(api, 'GET', `/v1/audit/${record.id}/proof?size=0`, { token }), 400, 'VALIDATION_ERROR');
        expectError(await send(api, 'GET', '/v1/audit/proof?from=0&to=5', { token }), 400, 'VALIDATION_ERROR');
        expectError(await send(api, 'GET', '/v1/audit/proof?from=1', { token }), 400, 'VALIDATION_ERROR');
        expectError(await send(api, 'GET', '/v1/audit/proof?from=-1&to=1', { token }), 400, 'VALIDATION_ERROR');
        expectError(await send(api, 'GET', `/v1/audit/proof?from=1&to=${'9'.repeat(30)}`, { token }), 400, 'VALIDATION_ERROR');
        expectError(await send(api, 'GET', '/v1/audit/proof?from=1&to=1&x=1', { token }), 400, 'VALIDATION_ERROR');
        expectError(await send(api, 'POST', '/v1/audit/checkpoint', { token }), 405, 'METHOD_NOT_ALLOWED');
        expect((await send(api, 'GET', '/v1/audit/proof?from=1&to=1', { token })).body.data).toEqual({ from: 1, to: 1, hashes: [] });
        // The OpenAPI document lists the log's routes, served as it says.
        const paths = (await send(api, 'GET', '/v1/openapi.json', { token })).body.paths;
        for (const path of ['/v1/audit/checkpoint', '/v1/audit/proof', '/v1/audit/{auditId}/proof', '/v1/audit/{auditId}/bundle'])
          expect(paths[path]?.get).toBeDefined();
        expect(paths['/v1/audit/proof'].get.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(['from', 'to']);
        // The tenant-wide audit item route still answers beside the log's nouns.
        expect((await send(api, 'GET', `/v1/audit/${record.id}`, { token })).status).toBe(200);
      } finally {
        await storage.close();
      }
    });
  });
}
