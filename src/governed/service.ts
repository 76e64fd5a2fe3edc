/**
 * The governed service: the domain core of one governed entity (SEED.md Area B), no HTTP.
 * Work in progress: the surface is final, the implementation lands next.
 */
import type { GovernedService, GovernedServiceOptions } from './service-types.ts';

export type * from './service-types.ts';
export type * from './types.ts';

/** Creates the governed service of one entity. */
export function createGovernedService(options: GovernedServiceOptions): GovernedService {
  void options;
  throw new Error('createGovernedService: not implemented yet');
}
