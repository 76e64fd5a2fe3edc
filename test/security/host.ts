/**
 * The reference host as an attacker meets it: a real process (`examples/reference-host/main.ts`
 * under tsx) on 127.0.0.1 with a free port, its stderr kept line by line (the 500 log), and small
 * clients for HTTP and MCP that record every answer.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** A running reference host. */
export interface ReplayHost {
  url: string;
  /** stderr lines so far. */
  stderr: string[];
  stop(): Promise<number | null>;
}

function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Starts the host with `env` (PORT=0, HOST=127.0.0.1 added) and waits for its banner. */
export function startReplayHost(env: Record<string, string>): Promise<ReplayHost> {
  const clean = { ...process.env };
  for (const key of Object.keys(clean)) if (key.startsWith('CELLGATE_') || key === 'DATABASE_URL') delete clean[key];
  // One process (`node --import tsx`), not the tsx command: that command relays signals to a
  // second process, and on a loaded machine its relay loses the race with our SIGTERM and ends
  // the host with SIGKILL (exit 143) instead of letting it stop cleanly.
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/reference-host/main.ts'], {
    cwd: root,
    env: { ...clean, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr: string[] = [];
  let partial = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split('\n');
    partial = parts.pop()!;
    stderr.push(...parts);
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const listening = /listening on (http:\/\/\S+)/.exec(out);
      // The governed resources print their lines after `listening on`; `metrics` is the last one.
      if (listening && /^\s+metrics\s/m.test(out)) {
        resolve({
          url: listening[1]!,
          stderr,
          stop: async () => {
            child.kill('SIGTERM');
            return exited(child);
          },
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`reference host exited with ${code}: ${stderr.join('\n')}${partial}`)));
  });
}

/** One answer, parsed. */
export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON of many shapes, asserted member by member
  ms: number;
}

/** Every answer the replay received, for the 500-log check. */
export const received: Reply[] = [];

/** Sends one request; `body` is sent as is when it is a string (to carry `1e400` or exact nesting). */
export async function hit(
  base: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const started = performance.now();
  const response = await fetch(`${base}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const reply = { status: response.status, headers: response.headers, text, body: parsed, ms: performance.now() - started };
  received.push(reply);
  return reply;
}

/** Headers of an MCP client over Streamable HTTP. */
export const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

/** One JSON-RPC request to `/mcp` (stateless server: no session needed). `params` may be raw JSON text. */
export function mcp(base: string, method: string, params: unknown): Promise<Reply> {
  const body =
    typeof params === 'string'
      ? `{"jsonrpc":"2.0","id":1,"method":${JSON.stringify(method)},"params":${params}}`
      : JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  return hit(base, 'POST', '/mcp', { body, headers: MCP_HEADERS });
}
