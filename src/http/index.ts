/** HTTP building blocks shared by the contract handler and governed resources. */
export * from './body.ts';
export * from './handler.ts';
export * from './responses.ts';
export * from './client-address.ts';
export { lightResponse, lightResponseParts, type LightResponseParts } from './light-response.ts';
