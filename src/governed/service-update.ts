/**
 * Update (PATCH): the merge form `{ expectedVersion, ...fields }` or the JSON Patch form
 * `{ expectedVersion, patch: [ops] }` (docs/decisions/B05.md); If-Match may replace `expectedVersion`.
 * A PATCH that changes nothing answers the unchanged record and writes no audit row.
 */
import { validationError } from '../errors.ts';
import { authorize } from './access.ts';
import { redactionClassOf } from './audit/index.ts';
import { SERVER_ASSIGNED } from './codec.ts';
import { applyPatch, jsonEqual, parsePatch } from './patch.ts';
import { checkPatchWritable, checkWritable } from './field-access.ts';
import { withinWrite } from './change-set/write-scope.ts';
import { carrierOf, checkRecordSize, checkVersion, live, nextState, viewFor, write, type ServiceOperation } from './service-context.ts';
import { invalidRecord, parseInput, VersionSchema } from './service-schemas.ts';
import type { RecordView } from './types.ts';

/** Parsed input of an update. */
export interface UpdateInput {
  id: string;
  ifMatch?: number | undefined;
  /** The expected version given beside the body (programmatic callers); the body's member wins. */
  expectedVersion?: number | undefined;
  body: Record<string, unknown>;
}

/** The body's `expectedVersion` and the rest; one of it or If-Match is required (docs/decisions/B04.md). */
export function splitExpectedVersion(
  body: Record<string, unknown>,
  ifMatch: number | undefined,
  fallback?: number,
): { expectedVersion: number | undefined; rest: Record<string, unknown> } {
  const { expectedVersion: given, ...rest } = body;
  const expectedVersion = given === undefined ? fallback : parseInput(VersionSchema, given, 'body member', 'expectedVersion');
  if (expectedVersion === undefined && ifMatch === undefined) {
    throw validationError('expectedVersion is required', [{ path: 'expectedVersion', message: 'Required (or send If-Match)' }]);
  }
  return { expectedVersion, rest };
}

/** The update operation. */
export const updateOperation: ServiceOperation<UpdateInput, RecordView> = {
  access(ctx, context, scope) {
    authorize(context.actor, ctx.policy, scope.workspaceId, 'update');
  },
  async run(ctx, context, scope, { id, ifMatch, body, ...given }, joined) {
    const { codec } = ctx;
    const { expectedVersion, rest } = splitExpectedVersion(body, ifMatch, given.expectedVersion);
    const isPatch = Object.hasOwn(rest, 'patch') && codec.field('patch') === undefined;
    if (isPatch && Object.keys(rest).length > 1)
      throw validationError('Use either the merge form or the patch form', [{ path: 'patch', message: 'Send no other fields with patch' }]);
    const operations = isPatch
      ? parsePatch(rest.patch, {
          isProtected: (field) => SERVER_ASSIGNED.has(field),
          redactionClass: (field) => redactionClassOf(codec.field(field)?.descriptor),
        })
      : undefined;
    // Before any value is looked at, so no message can echo a value the caller may not write.
    const mask = ctx.fieldAccess.maskFor(context.actor, scope.workspaceId);
    if (operations === undefined) checkWritable(mask, Object.keys(rest));
    else checkPatchWritable(mask, operations);
    let merge: Record<string, unknown> = {};
    if (operations === undefined) {
      const decoded = codec.decode(rest, true);
      if (decoded.issues.length > 0) throw invalidRecord('Invalid record', decoded.issues);
      merge = decoded.values;
    }
    const expectation = { ifMatch, expectedVersion };
    const record = await withinWrite(ctx.storage, joined, async (running) => {
      const current = await live(ctx, running.session, scope, id);
      checkVersion(ctx, context, current, expectation);
      let fields: Record<string, unknown>;
      if (operations === undefined) fields = { ...current.fields, ...merge };
      else {
        const decoded = codec.decode(applyPatch(codec.business(current), operations), false);
        if (decoded.issues.length > 0) throw invalidRecord('Invalid record after applying the patch', decoded.issues);
        fields = decoded.values;
      }
      // An update that changes nothing writes nothing: no version, no audit, no rule asked.
      if (codec.fields.every((field) => jsonEqual(current.fields[field.name] ?? null, fields[field.name] ?? null))) return current;
      checkRecordSize(ctx, fields, mask.hidden.length === 0);
      const after = nextState(current, context, { fields });
      return write(ctx, running, context, { eventType: 'entity.updated', before: current, after, carrier: carrierOf(expectation), input: body });
    });
    return viewFor(ctx, context, record);
  },
};
