/**
 * What a principal that is not a request may see of an API's events (docs/field-access.md,
 * docs/decisions/B34.md): a webhook subscription, or an `onEvent` handler the application gives a
 * principal. The same two rules as every history read: the event must be within the principal's
 * history reach (its roles' `view` on the entity, where the record lives), and fields it may not
 * view leave the event's diff and snapshot.
 */
import type { DomainEvent } from '../storage/types.ts';
import { maskEvent } from './field-access.ts';
import type { HistoryReachPolicy } from './history-reach.ts';
import type { Actor } from './types.ts';

/** Whom events are read for: roles as a token would carry them (`roles`, `workspaces`, `plan`). */
export interface AccessPrincipal {
  /** Tenant-wide roles; they count in every workspace. @default [] */
  roles?: readonly string[];
  /** Roles per workspace id. @default {} */
  workspaces?: Readonly<Record<string, readonly string[]>>;
  /** The plan, when a resource requires one. */
  plan?: string;
}

/** The access decisions of one API for principals that are not requests (`api.access`). */
export interface ApiAccess {
  /**
   * The event as `principal` may see it: null when it is out of the principal's reach (an entity
   * it may not view there, or one the API does not mount); otherwise a copy whose diff and snapshot
   * hold only the fields it may view.
   */
  eventFor<E extends DomainEvent>(principal: AccessPrincipal, event: E): E | null;
}

/** The actor a principal reads as in one tenant: history reading is what it does. */
function actorOf(principal: AccessPrincipal, tenantId: string): Actor {
  return {
    id: 'principal',
    type: 'service',
    tenantId,
    roles: [...(principal.roles ?? [])],
    workspaces: Object.fromEntries(Object.entries(principal.workspaces ?? {}).map(([id, roles]) => [id, [...roles]])),
    permissions: ['audit:read'],
    ...(principal.plan === undefined ? {} : { plan: principal.plan }),
  };
}

/** The {@link ApiAccess} of an API's history reach policy. */
export function apiAccess(reach: HistoryReachPolicy): ApiAccess {
  return {
    eventFor(principal, event) {
      const actor = actorOf(principal, event.tenantId);
      if (!reach.admits(actor, event.resourceType, event.workspaceId)) return null;
      return maskEvent(event, reach.maskFor(actor, event.resourceType, event.workspaceId));
    },
  };
}
