import { describe, expect, it } from 'vitest';
import { ConfigurationError } from 'cellgate';
import { generateNoteKey, noteSigner, noteVerifier, verifierKeyOf } from '../../../src/governed/log/note-keys.ts';
import { checkpointBody, noteSignedBy, parseCheckpoint, parseNote, signNote } from '../../../src/governed/log/note.ts';

// The signed-note test vector of Go's golang.org/x/mod/sumdb/note (note_test.go): key, text, signature.
const GO_SIGNER = 'PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz';
const GO_VERIFIER = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const GO_TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const GO_NOTE = `${GO_TEXT}\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;

describe('signed notes (C2SP signed-note, Go sumdb/note keys)', () => {
  it("signs Go's test vector byte for byte, and derives its verifier key", async () => {
    const signer = await noteSigner(GO_SIGNER);
    expect(signer.name).toBe('PeterNeumann');
    expect(signer.keyHash).toBe(0xc74f20a3);
    expect(await signNote(GO_TEXT, [signer])).toBe(GO_NOTE);
    expect(await verifierKeyOf(GO_SIGNER)).toBe(GO_VERIFIER);
  });

  it('verifies a note with the right key only, and not once its text changed', async () => {
    const verifier = (await noteVerifier(GO_VERIFIER))!;
    expect(await noteSignedBy(parseNote(GO_NOTE)!, verifier)).toBe(true);
    expect(await noteSignedBy(parseNote(GO_NOTE.replace('problem,', 'problem;'))!, verifier)).toBe(false);
    const other = await generateNoteKey('PeterNeumann');
    expect(await noteSignedBy(parseNote(GO_NOTE)!, (await noteVerifier(other.verifierKey))!)).toBe(false);
  });

  it('generates key pairs that sign and verify checkpoints', async () => {
    const { signerKey, verifierKey } = await generateNoteKey('audit.example.com');
    expect(signerKey).toMatch(/^PRIVATE\+KEY\+audit\.example\.com\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}$/);
    expect(await verifierKeyOf(signerKey)).toBe(verifierKey);
    const root = new Uint8Array(32).fill(7);
    const note = await signNote(checkpointBody({ origin: 'audit.example.com/tenant/t1', size: 42, root }), [await noteSigner(signerKey)]);
    expect(note.split('\n').slice(0, 4)).toEqual(['audit.example.com/tenant/t1', '42', Buffer.from(root).toString('base64'), '']);
    const parsed = parseNote(note)!;
    expect(await noteSignedBy(parsed, (await noteVerifier(verifierKey))!)).toBe(true);
    expect(parseCheckpoint(parsed.body)).toEqual({ origin: 'audit.example.com/tenant/t1', size: 42, root });
  });

  it('refuses malformed keys and notes without echoing the key', async () => {
    for (const bad of ['', 'PRIVATE+KEY+x', GO_SIGNER.replace('c74f20a3', 'c74f20a4'), GO_VERIFIER]) {
      const error = await noteSigner(bad).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(String((error as Error).message)).not.toContain('AYEKFALV');
    }
    expect(await noteVerifier('PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW')).toBeNull();
    expect(parseNote('no signature\n')).toBeNull();
    expect(parseNote(`${GO_TEXT}\n\u2014 Bad Name x08go/ZJ=\n`)).toBeNull();
    expect(parseCheckpoint('origin\n-1\nAAAA\n')).toBeNull();
  });
});
