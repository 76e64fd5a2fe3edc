/** The governed HTTP behaviour suite on the SQLite driver: a fresh better-sqlite3 file per setup. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqliteStorage } from 'cellgate/storage/sqlite';
import { afterAll, describe } from 'vitest';
import { driverSkip } from '../storage/drivers.ts';
import { describeGovernedBehaviour } from './behaviour.ts';

const skip = driverSkip('sqlite');
const dir = mkdtempSync(join(tmpdir(), 'cellgate-governed-sqlite-'));
const opened: Array<{ close(): Promise<void> }> = [];
let count = 0;

if (skip) describe.skip(`governed HTTP behaviour (sqlite), skipped (reason: ${skip})`, () => undefined);
else {
  describeGovernedBehaviour('sqlite', () => {
    const driver = sqliteStorage({ filename: join(dir, `governed-${count++}.db`) });
    opened.push(driver);
    return driver;
  });
  afterAll(async () => {
    for (const driver of opened) await driver.close();
    rmSync(dir, { recursive: true, force: true });
  });
}
