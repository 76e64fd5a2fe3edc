/**
 * A host process of the event process tests, run with tsx. Environment: DATABASE_URL
 * (`postgres://…` or `sqlite:<file>`), RECEIVER
 * (webhook URL), SECRET, SUBSCRIPTION (its id, default receiver), WRITES (records to create and commit first, default 0), LEASE_MS,
 * TIMEOUT_MS. Prints `committed <n>` after its writes and `dispatching` once its dispatcher runs;
 * it runs until killed or sent SIGTERM (then it stops the dispatcher and exits 0).
 */
import { createGovernedService, createWebhookDispatcher, type Actor } from 'cellgate';
import { postgresStorage } from 'cellgate/storage/postgres';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { ORDER_DOCUMENT } from './support.ts';

const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`${name} is required`);
  return value;
};

const url = env('DATABASE_URL');
const storage = url.startsWith('sqlite:') ? sqliteStorage({ filename: url.slice('sqlite:'.length) }) : postgresStorage({ connectionString: url });
const service = createGovernedService({ entity: ORDER_DOCUMENT, storage });
await storage.migrate([service.model]);

const writes = Number(env('WRITES', '0'));
if (writes > 0) {
  const workspaceId = crypto.randomUUID();
  const actor: Actor = {
    id: crypto.randomUUID(),
    type: 'service',
    tenantId: env('TENANT', crypto.randomUUID()),
    roles: ['admin'],
    workspaces: { [workspaceId]: ['admin'] },
    permissions: [],
  };
  for (let index = 0; index < writes; index += 1) await service.create({ actor, scope: { workspaceId } }, { title: `w${index}`, amount: index });
  console.log(`committed ${writes}`);
}

const timeoutMs = Number(env('TIMEOUT_MS', '2000'));
const dispatcher = createWebhookDispatcher({
  allowTargets: { loopback: true },
  storage,
  subscriptions: [{ id: env('SUBSCRIPTION', 'receiver'), url: env('RECEIVER'), secret: env('SECRET'), principal: 'unrestricted' }],
  timeoutMs,
  leaseMs: Number(env('LEASE_MS', String(timeoutMs + 1000))),
  backoff: { initialMs: 50, maxMs: 200 },
  batchSize: 25,
  pollIntervalMs: 20,
});
dispatcher.start();
console.log('dispatching');

// Stops by itself when the test that started it is gone (this process is re-parented).
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.exit(0);
}, 500).unref();

process.on('SIGTERM', () => {
  void dispatcher
    .stop()
    .then(() => storage.close())
    .then(() => process.exit(0));
});
