/**
 * `cellgate mcp` under a slow reader: a client sends many requests and reads the answers late.
 * The server must answer every request, in full, without piling a listener per pending answer on
 * stdout (Node's `MaxListenersExceededWarning` on stderr before the fix), and stop reading stdin
 * while its answers wait instead of buffering without bound.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

/** Requests sent before the client reads anything: far more than Node's 10-listener warning threshold. */
const REQUESTS = 200;

describe('cellgate mcp (stdio) with a client that reads its answers late', () => {
  it('answers every request, and warns nothing on stderr', async () => {
    const child = spawn(join(root, 'node_modules/.bin/tsx'), [join(root, 'src/cli/index.ts'), 'mcp'], { cwd: root });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.pause();
    // Requests go out once the server runs (tsx starts in seconds), so all of them meet the paused reader.
    while (!stderr.includes('serving on stdio')) await once(child.stderr, 'data');
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'slow', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    // Each answer is the primitive catalog (tens of KB): a few fill the pipe while nobody reads.
    for (let id = 1; id <= REQUESTS; id++) send({ jsonrpc: '2.0', id, method: 'resources/read', params: { uri: 'platform://docs/primitive-catalog' } });
    // Not a timing assertion: the slow reader lets the server run into its full pipe before reading.
    await sleep(2000);

    const answered = new Set<number>();
    let partial = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        const message = JSON.parse(line) as { id?: number; result?: { contents?: Array<{ text: string }> } };
        if (typeof message.id === 'number' && message.id > 0 && message.result?.contents?.[0]?.text.length) answered.add(message.id);
        if (answered.size === REQUESTS) child.stdin.end();
      }
    });
    child.stdout.resume();
    const [code] = await once(child, 'exit');
    expect(answered.size).toBe(REQUESTS);
    expect(code).toBe(0);
    expect(stderr).not.toMatch(/MaxListenersExceededWarning|Warning:/);
  }, 120_000);
});
