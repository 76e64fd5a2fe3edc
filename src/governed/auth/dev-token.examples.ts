/** The `@example` of {@link signDevToken}, type-checked (build/jsdoc-examples/sync.ts). */
// #region signDevToken
import { signDevToken } from 'cellgate';

// For development and tests only: production tokens come from your identity provider.
const token = await signDevToken({
  secret: process.env.CELLGATE_JWT_SECRET ?? '',
  tenantId: '00000000-0000-4000-8000-000000000001',
  workspaces: { '00000000-0000-4000-8000-000000000002': ['editor'] },
});
export const headers = { authorization: `Bearer ${token}` };
// #endregion
