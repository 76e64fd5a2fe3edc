/**
 * The context the HTTP edge runs the list operation in (docs/decisions/B25.md): the entity's own,
 * except that its storage reads a list page in batches of at most `LIST_BATCH_MAX_LENGTH`
 * characters when the page could pass that bound (`pageSize` × `recordLimit`). The programmatic
 * `service.list`, which returns the whole page as an array, keeps the plain context.
 */
import { LIST_BATCH_MAX_LENGTH } from '../../limits.ts';
import type { EntityStorageModel, ListQuery, ListResult, StorageDriver } from '../../storage/types.ts';
import type { ServiceContext } from '../service-context.ts';

/**
 * `storage` with a `list` that asks for batches. Every other member is the driver's own, its
 * methods bound to the driver (a driver may be a class with private state).
 */
function sizedListStorage(storage: StorageDriver, recordLimit: number, batchLength: number): StorageDriver {
  const list = (model: EntityStorageModel, query: ListQuery): Promise<ListResult> =>
    // A page that cannot pass one batch keeps the one-query read (no sizes to compute).
    storage.list(model, query.limit * recordLimit <= batchLength ? query : { ...query, maxLength: batchLength });
  return new Proxy(storage, {
    get(target, name) {
      if (name === 'list') return list;
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * `ctx` whose storage reads list pages in batches bounded by `batchLength` (built once per
 * resource: a proxy, so whatever the context holds or gains stays the entity's own).
 */
export function sizedListContext(ctx: ServiceContext, batchLength: number = LIST_BATCH_MAX_LENGTH): ServiceContext {
  const storage = sizedListStorage(ctx.storage, ctx.recordLimit, batchLength);
  return new Proxy(ctx, {
    get(target, name) {
      return name === 'storage' ? storage : Reflect.get(target, name, target);
    },
  });
}
