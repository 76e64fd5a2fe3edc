/** `npx tsx examples/hono-host/main.ts`: the reference host on Hono (PORT, HOST, DATABASE_URL, CELLGATE_JWT_*). */
import { runHost } from 'cellgate/host';
import { frameworkMount } from 'cellgate/host/frameworks';

process.exitCode = await runHost('hono host', await frameworkMount('hono'));
