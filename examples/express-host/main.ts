/** `npx tsx examples/express-host/main.ts`: the reference host on Express (PORT, HOST, DATABASE_URL, CELLGATE_JWT_*). */
import { mountExpress } from './app.ts';
import { runHost } from './run-host.ts';

process.exitCode = await runHost('express host', mountExpress);
