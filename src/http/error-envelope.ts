/**
 * The error envelope `{ error, message, details? }` as a zod schema, for the OpenAPI documents of
 * both the contract handler and governed resources (they share it through this neutral module,
 * not through each other).
 */
import { z } from 'zod';
import { errorStatus, type ErrorCode } from '../errors.ts';

/** The error envelope of every non-2xx answer (docs/governed-conventions.md#errors-and-status-taxonomy). */
export const ErrorEnvelopeSchema = z
  .object({
    error: z.enum(Object.keys(errorStatus) as [ErrorCode, ...ErrorCode[]]).describe('Machine-readable error code.'),
    message: z.string().describe('Human-readable explanation.'),
    details: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        'Extra data: `fields: [{ path, message }]` for VALIDATION_ERROR, `correlationId` for INTERNAL_ERROR, `limit` for PAYLOAD_TOO_LARGE (and `length` when a write would make a record larger than its limit).',
      ),
  })
  .meta({ id: 'Error' });
