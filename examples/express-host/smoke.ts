/** `npx tsx examples/express-host/smoke.ts http://127.0.0.1:3000`: exits 1 on a wrong answer. */
import { smokeMain } from 'cellgate/host';

process.exitCode = await smokeMain();
