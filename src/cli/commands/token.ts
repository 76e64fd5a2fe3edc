/**
 * `cellgate token`: prints an HS256 development token signed with `CELLGATE_JWT_SECRET`, carrying
 * the default claims the reference host and `createGovernedResource` understand.
 */
import { UsageError, parseCommandArgs, runCommand } from '../args.ts';
import { MIN_SECRET_BYTES, signDevToken } from '../../governed/auth/index.ts';
import { MAX_DEV_TOKEN_LIFETIME_SECONDS } from '../../limits.ts';

const help = `Usage: cellgate token --tenant <uuid> [options]

Prints a signed development token (HS256, secret from CELLGATE_JWT_SECRET, at least ${MIN_SECRET_BYTES} bytes).

Options:
  --tenant <uuid>              tenant id (required)
  --workspace <uuid>=<roles>   roles in a workspace, comma-separated (repeatable),
                               e.g. --workspace 1f0…=admin or =viewer,editor
  --role <role>                tenant-wide role (repeatable)
  --permission <perm>          permission, e.g. audit:read, audit:restore, crm.customers.read (repeatable)
  --sub <uuid>                 actor id (default: a random UUID)
  --actor-type <user|service>  default user
  --plan <name>                the tenant's plan
  --issuer <iss>               iss claim (default: CELLGATE_JWT_ISSUER when set)
  --audience <aud>             aud claim (default: CELLGATE_JWT_AUDIENCE when set)
  --expires <duration>         lifetime, e.g. 15m, 1h, 7d (default 1h; at most ${MAX_DEV_TOKEN_LIFETIME_SECONDS / 86_400}d)
  -h, --help                   show this help

Example:
  CELLGATE_JWT_SECRET=… cellgate token --tenant 6b1c…  --workspace 0c4e…=admin --permission audit:read`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function uuidArg(name: string, value: string): string {
  if (!UUID.test(value)) throw new UsageError(`--${name} must be a UUID, got "${value}"`);
  return value.toLowerCase();
}

const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };
const DURATION = /^(\d{1,12})\s*(s|sec|secs|m|min|mins|h|hr|hrs|d|day|days|w|week|weeks)$/i;

/** `--expires` in seconds: a whole number and a unit, from 1 second to {@link MAX_DEV_TOKEN_LIFETIME_SECONDS}. */
function lifetimeArg(value: string): number {
  const match = DURATION.exec(value.slice(0, 40).trim());
  const seconds = match === null ? Number.NaN : Number(match[1]) * UNIT_SECONDS[match[2]!.charAt(0).toLowerCase()]!;
  if (!(seconds >= 1 && seconds <= MAX_DEV_TOKEN_LIFETIME_SECONDS)) {
    throw new UsageError(
      `--expires must be a duration from 1s to ${MAX_DEV_TOKEN_LIFETIME_SECONDS / 86_400}d such as 15m, 1h or 7d, got "${value.slice(0, 40)}"`,
    );
  }
  return seconds;
}

function workspaceArg(value: string): [string, string[]] {
  const [id, roles] = value.split('=', 2);
  if (id === undefined || roles === undefined) throw new UsageError(`--workspace must be <uuid>=<role>[,<role>], got "${value}"`);
  const list = roles.split(',').map((role) => role.trim());
  if (list.some((role) => role === '')) throw new UsageError(`--workspace ${id} needs at least one role name`);
  return [uuidArg('workspace', id), list];
}

/** Runs `cellgate token`. */
export async function run(args: string[]): Promise<number> {
  return runCommand('token', help, args, async () => {
    const { values } = parseCommandArgs(args, {
      tenant: { type: 'string' },
      workspace: { type: 'string', multiple: true },
      role: { type: 'string', multiple: true },
      permission: { type: 'string', multiple: true },
      sub: { type: 'string' },
      'actor-type': { type: 'string' },
      plan: { type: 'string' },
      issuer: { type: 'string' },
      audience: { type: 'string' },
      expires: { type: 'string' },
    });
    const secret = process.env.CELLGATE_JWT_SECRET ?? '';
    if (new TextEncoder().encode(secret).byteLength < MIN_SECRET_BYTES) {
      throw new UsageError(`CELLGATE_JWT_SECRET must be set to at least ${MIN_SECRET_BYTES} bytes`);
    }
    if (values.tenant === undefined) throw new UsageError('--tenant <uuid> is required (see --help)');
    const actorType = values['actor-type'] ?? 'user';
    if (actorType !== 'user' && actorType !== 'service') throw new UsageError('--actor-type must be user or service');
    const expires = lifetimeArg(values.expires ?? '1h');
    const issuer = values.issuer ?? process.env.CELLGATE_JWT_ISSUER;
    const audience = values.audience ?? process.env.CELLGATE_JWT_AUDIENCE;
    const token = await signDevToken({
      secret,
      tenantId: uuidArg('tenant', values.tenant),
      ...(values.sub === undefined ? {} : { sub: uuidArg('sub', values.sub) }),
      actorType,
      roles: values.role ?? [],
      workspaces: Object.fromEntries((values.workspace ?? []).map(workspaceArg)),
      permissions: values.permission ?? [],
      ...(values.plan === undefined ? {} : { plan: values.plan }),
      ...(issuer ? { issuer } : {}),
      ...(audience ? { audience } : {}),
      expiresIn: expires,
    });
    console.log(token);
    return 0;
  });
}
