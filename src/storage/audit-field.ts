/**
 * `AuditQuery.field` in the process (the memory driver; SQL drivers use the same rule in their
 * WHERE, src/storage/sql/audit-field.ts): whether an audit diff changed a field.
 */

/** Whether `diff` holds an operation on `field` or below it, other than an `add` of null. */
export function diffChangesField(diff: unknown, field: string): boolean {
  if (!Array.isArray(diff)) return false;
  const below = `${field}/`;
  return diff.some((operation: { op?: unknown; path?: unknown; value?: unknown }) => {
    const path = operation?.path;
    if (typeof path !== 'string' || (path !== field && !path.startsWith(below))) return false;
    return !(operation.op === 'add' && Object.hasOwn(operation, 'value') && operation.value === null);
  });
}
