/** `npx tsx examples/hono-host/main.ts`: the reference host on Hono (PORT, HOST, DATABASE_URL, CELLGATE_JWT_*). */
import { runHost } from '../express-host/run-host.ts';
import { mountHono } from './app.ts';

process.exitCode = await runHost('hono host', mountHono);
