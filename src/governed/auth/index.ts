/** Token verification and development tokens for governed resources. */
export { TokenClaimsSchema, claimsToActor, type TokenClaims } from './claims.ts';
export type { AuthOptions } from './options.ts';
export { createAuthenticator, MIN_SECRET_BYTES, type Authenticator } from './verify.ts';
export { signDevToken, type DevTokenInput } from './dev-token.ts';
