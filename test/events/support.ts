/**
 * Helpers of the event tests: a real webhook receiver on 127.0.0.1 that verifies every delivery
 * with the `standardwebhooks` library (as a receiver would) and records what it saw, and a small
 * governed entity document.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { defineEntity } from 'cellgate';

/** One request the receiver got. */
export interface Received {
  id: string;
  /** Attempt number of this id at the receiver (1 for the first). */
  attempt: number;
  verified: boolean;
  body: { type: string; timestamp: string; data: Record<string, unknown> } | null;
  /** Another request with the same webhook-id was in flight when this one arrived. */
  overlapped: boolean;
  path: string;
}

/** What the receiver answers: a status, or `hang` (never answers until closed). */
export type Behaviour = (id: string, attempt: number) => number | 'hang';

/** A running receiver. */
export interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** Starts a receiver verifying with `secret`; `behaviour` decides each answer (default 204). */
export async function startReceiver(secret: string, behaviour: Behaviour = () => 204, delayMs = 0): Promise<Receiver> {
  const verifier = new Webhook(secret);
  const received: Received[] = [];
  const attempts = new Map<string, number>();
  const inFlight = new Set<string>();
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const id = String(request.headers['webhook-id'] ?? '');
      const attempt = (attempts.get(id) ?? 0) + 1;
      attempts.set(id, attempt);
      let body: Received['body'] = null;
      let verified = false;
      try {
        body = verifier.verify(text, request.headers as Record<string, string>) as Received['body'];
        verified = true;
      } catch {
        verified = false;
      }
      received.push({ id, attempt, verified, body, overlapped: inFlight.has(id), path: request.url ?? '' });
      inFlight.add(id);
      // In flight until the exchange ends, also when the sender gives up or dies.
      response.on('close', () => inFlight.delete(id));
      const answer = behaviour(id, attempt);
      if (answer === 'hang') return;
      setTimeout(() => response.writeHead(answer).end(), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A tier-2 entity with a credential field, for the event tests. */
export const ORDER_DOCUMENT = defineEntity({
  $schema: 'https://cellgate.dev/schemas/entity-definition/v1.json',
  name: 'Order',
  key: 'shop.order',
  version: '1.0.0',
  description: 'An order of the event tests',
  scope: 'workspace-shared',
  governance_tier: 'tier-2',
  permissions: { view: ['viewer', 'editor', 'admin'], edit: ['editor', 'admin'], admin: ['admin'] },
  fields: {
    title: { type: 'string' },
    amount: { type: 'number' },
    card_token: { type: 'string', optional: true, sensitive: true, credential: true },
  },
});

const root = fileURLToPath(new URL('../../', import.meta.url));
const hosts: ChildProcess[] = [];

/** Starts `dispatcher-process.ts` with `env` and resolves once its dispatcher runs. */
export function startEventHost(env: Record<string, string>): Promise<ChildProcess> {
  // One process (`node --import tsx`), not the tsx command: that command runs the script in a
  // second process, so a SIGKILL reached only the wrapper and left the dispatcher running.
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/events/dispatcher-process.ts'], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  hosts.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (/dispatching/.test(out)) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`host exited ${code}: ${stderr}`)));
  });
}

/**
 * Process ids of event hosts still running with this webhook secret (Linux: read from /proc). A
 * killed host must leave none: under the tsx command a SIGKILL reached only the wrapper.
 */
export function runningEventHosts(secret: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (command.includes('dispatcher-process.ts') && readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0').includes(`SECRET=${secret}`))
        pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** Kills every host still running (for afterAll). */
export function killEventHosts(): void {
  for (const child of hosts) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** Resolves when the process has exited. */
export const exited = (child: ChildProcess): Promise<unknown> =>
  new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('exit', resolve)));
