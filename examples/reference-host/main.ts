/**
 * `npm start`: the reference host on node:http. Settings come from the environment
 * (PORT, HOST, DATABASE_URL, CELLGATE_JWT_*; see README.md beside this file).
 */
import { runReferenceHost } from './run.ts';

process.exitCode = await runReferenceHost(process.env);
