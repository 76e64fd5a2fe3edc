/** `npx tsx examples/express-host/main.ts`: the reference host on Express (PORT, HOST, DATABASE_URL, CELLGATE_JWT_*). */
import { runHost } from 'cellgate/host';
import { frameworkMount } from 'cellgate/host/frameworks';

process.exitCode = await runHost('express host', await frameworkMount('express'));
