/**
 * The checks every runtime smoke runs against the built root entry (`dist/index.js`): the
 * contract handler and a governed API on the memory driver, driven with plain Fetch requests.
 * Plain JavaScript so Bun, Deno and workerd run it as is. Prints one JSON line of results.
 *
 * @param {typeof import('cellgate')} cellgate the root entry, imported by the runtime's own script
 * @param {{ fileSystem: boolean }} runtime whether the runtime has a file system (the docs assets
 *   come from the installed swagger-ui-dist there; elsewhere the host passes `docs.assets`)
 * @returns {Promise<{ name: string, ok: boolean, got: unknown }[]>}
 */
export async function runChecks(cellgate, runtime) {
  const { createContractHandler, createGovernedApi, memoryStorage, signDevToken } = cellgate;
  const results = [];
  const check = (name, ok, got) => results.push({ name, ok, got });
  const json = (method, body, headers = {}) => ({ method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  const contract = createContractHandler();
  const primitives = await (await contract(new Request('http://smoke.test/api/primitives'))).json();
  check('GET /api/primitives lists 30 core primitives', Array.isArray(primitives) && primitives.length === 30, primitives.length);

  const asset = await contract(new Request('http://smoke.test/api/docs/assets/swagger-ui.css'));
  const expected = runtime.fileSystem ? 200 : 404;
  check(`GET a docs asset answers ${expected}`, asset.status === expected, asset.status);
  await asset.body?.cancel();

  const manifest = {
    apiVersion: 'platform/v1alpha1',
    kind: 'Cell',
    metadata: { key: 'smoke', name: 'Smoke', version: '1.0.0' },
    spec: { mount: { mountPath: '/', landingPage: 'home' }, pages: [{ key: 'home', type: 'dashboard', title: 'Home', path: '/home' }] },
  };
  const valid = await contract(new Request('http://smoke.test/api/validate/manifest', json('POST', { manifest })));
  const validBody = await valid.json();
  check('POST /api/validate/manifest accepts a valid manifest', valid.status === 200 && validBody.valid === true, [valid.status, validBody.valid]);
  const broken = await contract(new Request('http://smoke.test/api/validate/manifest', json('POST', { manifest: { ...manifest, kind: 'Nope' } })));
  const brokenBody = await broken.json();
  check('POST /api/validate/manifest reports a broken manifest', broken.status === 200 && brokenBody.valid === false, [broken.status, brokenBody.valid]);

  const secret = 'runtime-smoke-secret-0123456789abcdef';
  const workspace = '0a000000-0000-4000-8000-000000000002';
  const api = createGovernedApi({
    storage: memoryStorage(),
    auth: { secret },
    resources: [
      {
        $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
        name: 'Note',
        description: 'A note (runtime smoke).',
        key: 'smoke.note',
        version: '1.0.0',
        scope: 'workspace-shared',
        governance_tier: 'tier-1',
        permissions: { view: ['viewer', 'editor', 'admin'], edit: ['editor', 'admin'], admin: ['admin'] },
        fields: { title: { type: 'string' } },
      },
    ],
  });
  await api.migrate();
  const token = await signDevToken({ secret, tenantId: '0a000000-0000-4000-8000-000000000001', roles: ['admin'], workspaces: { [workspace]: ['admin'] } });
  const collection = `http://smoke.test/v1/workspaces/${workspace}/notes`;
  const auth = { authorization: `Bearer ${token}` };

  const created = await api(new Request(collection, json('POST', { title: 'hello' }, auth)));
  const { data: note } = await created.json();
  check('governed POST creates a record', created.status === 201 && note.title === 'hello', [created.status, note.title]);
  const read = await api(new Request(`${collection}/${note.id}`, { headers: auth }));
  const { data: again } = await read.json();
  check('governed GET reads it back', read.status === 200 && again.id === note.id && again.title === 'hello', [read.status, again.title]);
  const anonymous = await api(new Request(collection));
  const refusal = await anonymous.json();
  check('governed GET without a token is 401 UNAUTHENTICATED', anonymous.status === 401 && refusal.error === 'UNAUTHENTICATED', [
    anonymous.status,
    refusal.error,
  ]);
  return results;
}
