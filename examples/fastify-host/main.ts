/** `npx tsx examples/fastify-host/main.ts`: the reference host on Fastify (PORT, HOST, DATABASE_URL, CELLGATE_JWT_*). */
import { runHost } from '../express-host/run-host.ts';
import { mountFastify } from './app.ts';

process.exitCode = await runHost('fastify host', mountFastify);
