/**
 * The reference host's checkpoint key: CELLGATE_LOG_SIGNING_KEY when set (a bad one is a
 * configuration error naming the variable, never echoing it), else a development key made once per
 * data directory (mode 0600, the same key after a restart), else a per-run key.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigurationError, generateNoteKey } from 'cellgate';
import { DEV_LOG_KEY_FILE, logSignerFromEnv } from '../../src/host/log-key.ts';

const dir = mkdtempSync(join(tmpdir(), 'cellgate-host-key-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('reference host log key', () => {
  it('uses CELLGATE_LOG_SIGNING_KEY and prints its verifier key', async () => {
    const { signerKey, verifierKey } = await generateNoteKey('audit.example.com');
    const key = await logSignerFromEnv({ CELLGATE_LOG_SIGNING_KEY: signerKey, DATABASE_URL: 'memory:' });
    expect(key.verifierKey).toBe(verifierKey);
    expect(key.banner).toContain(verifierKey);
    const error = await logSignerFromEnv({ CELLGATE_LOG_SIGNING_KEY: 'PRIVATE+KEY+x+00000000+secretsecret' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain('CELLGATE_LOG_SIGNING_KEY');
    expect((error as Error).message).not.toContain('secretsecret');
  });

  it('generates one key per data directory, kept private and reused after a restart', async () => {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'data', 'dev.db')}` };
    const first = await logSignerFromEnv(env);
    const file = join(dir, 'data', DEV_LOG_KEY_FILE);
    expect(readFileSync(file, 'utf8')).toMatch(/^PRIVATE\+KEY\+cellgate\.local\+[0-9a-f]{8}\+/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await logSignerFromEnv(env)).verifierKey).toBe(first.verifierKey);
    expect(first.banner).toContain(first.verifierKey);
    // Without a data directory, a key per run.
    const [a, b] = await Promise.all([logSignerFromEnv({ DATABASE_URL: 'memory:' }), logSignerFromEnv({ DATABASE_URL: 'memory:' })]);
    expect(a.verifierKey).not.toBe(b.verifierKey);
    expect(a.banner).toContain('per-run key');
  });
});
