/**
 * `verifyLog` from an NDJSON export, with no database: the export of an untouched log verifies
 * against a kept checkpoint; an edited record or a dropped line in the file is tampering; a line
 * that is not JSON is a VerifyLogError (cannot run).
 */
import { describe, expect, it } from 'vitest';
import { createCheckpoints, generateNoteKey, memoryStorage, noteSigner, verifyLog, VerifyLogError } from 'cellgate';
import { exportLogNdjson, ndjsonLogSource } from '../../src/governed/log/ndjson.ts';
import { auditFor, conformanceModels, freshScope, invoiceFields, newRecord, nextVersion } from '../../src/testing/storage-conformance-fixtures.ts';

describe('verifyLog from an NDJSON export', () => {
  it('verifies an exported log offline and catches an edit or a removed line', async () => {
    const storage = memoryStorage();
    await storage.migrate(conformanceModels);
    const scope = freshScope();
    let record = newRecord(scope, invoiceFields());
    for (let i = 0; i < 9; i++) {
      await storage.transaction((session) => session.appendAudit(auditFor(record, { diff: [{ op: 'replace', path: '/customerName', value: `c${i}` }] })));
      record = nextVersion(record);
    }
    const { signerKey, verifierKey } = await generateNoteKey('export.test');
    const kept = (await createCheckpoints(storage, { signer: await noteSigner(signerKey) }).checkpoint(scope.tenantId)).note;
    const lines: string[] = [];
    for await (const line of exportLogNdjson(storage.log!, scope.tenantId)) lines.push(line);
    expect(lines).toHaveLength(10);
    const check = async (text: string[]) =>
      verifyLog({ log: await ndjsonLogSource(text), tenantId: scope.tenantId, checkpoints: [kept], verifierKeys: [verifierKey] });
    expect(await check(lines)).toMatchObject({ status: 'verified', size: 9 });
    const edited = [...lines];
    edited[4] = edited[4]!.replace('"c4"', '"someone"');
    expect(await check(edited)).toMatchObject({ status: 'tampered', firstBadIndex: 4 });
    expect((await check([...lines.slice(0, 3), ...lines.slice(4)])).status).toBe('tampered');
    await expect(check(['{not json'])).rejects.toBeInstanceOf(VerifyLogError);
  });
});
