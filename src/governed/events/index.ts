/**
 * Domain events: emission through the outbox, the change feed route and webhook delivery
 * (docs/events.md).
 */
export { eventFromAudit, type EventSubscriber } from './emit.ts';
export { eventFeedRoutes, readFeed, type EventFeedOptions, type FeedWaiter } from './feed-route.ts';
export type { FeedWaiterLimits } from './wake.ts';
export { generateWebhookSecret, signWebhook } from './signing.ts';
export {
  createWebhookDispatcher,
  type DispatcherMetrics,
  type DispatchStep,
  type ResolveHost,
  type WebhookDispatcher,
  type WebhookDispatcherOptions,
  type WebhookSubscription,
  type WebhookTargetAllowance,
} from './webhooks.ts';
