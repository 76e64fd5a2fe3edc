/** The bounded list builder of every validated document (the contract's and the entity document's). */
import { z } from 'zod';
import { MAX_CONTRACT_LIST_ITEMS } from '../limits.ts';

/**
 * A list of a validated document, at most {@link MAX_CONTRACT_LIST_ITEMS} long. Every array of the
 * contract and entity-document schemas is one, so a longer list is refused at its path before its
 * items are checked.
 */
export const list = <T extends z.ZodType>(item: T) => z.array(item).max(MAX_CONTRACT_LIST_ITEMS);
