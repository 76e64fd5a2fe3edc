/** `npx tsx examples/next-host/main.ts`: the reference host on Next.js (PORT, HOST, DATABASE_URL, CELLGATE_JWT_*). */
import { runHost } from 'cellgate/host';
import { frameworkMount } from 'cellgate/host/frameworks';

process.env.NEXT_TELEMETRY_DISABLED ??= '1';
process.exitCode = await runHost('next host', await frameworkMount('next'));
