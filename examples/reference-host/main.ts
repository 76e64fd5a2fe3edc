/**
 * `npm start`: the reference host on node:http. Settings come from the environment
 * (PORT, HOST, DATABASE_URL, CELLGATE_JWT_*; see README.md beside this file).
 */
import { runReferenceHost } from 'cellgate/host';

process.exitCode = await runReferenceHost(process.env);
