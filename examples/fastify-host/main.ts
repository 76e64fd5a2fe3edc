/** `npx tsx examples/fastify-host/main.ts`: the reference host on Fastify (PORT, HOST, DATABASE_URL, CELLGATE_JWT_*). */
import { runHost } from 'cellgate/host';
import { frameworkMount } from 'cellgate/host/frameworks';

process.exitCode = await runHost('fastify host', await frameworkMount('fastify'));
