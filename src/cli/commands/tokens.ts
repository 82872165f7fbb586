/** `office-scheduler tokens`: named API tokens (admin only). */
import { emit, oneOf, parse, withArgument, type Io } from '../args.js';
import { ApiClient } from '../client.js';
import type { Command } from '../command.js';
import { table, time } from '../format.js';

const TOKEN_ROLES = ['member', 'admin'] as const;

async function tokensCreate(args: string[], io: Io): Promise<number> {
  const { values, argument: name } = withArgument(args, { role: { type: 'string' } }, 'tokens create needs a name: office-scheduler tokens create <name> [--role member|admin]');
  const role = oneOf(values, 'role', TOKEN_ROLES, 'a role') ?? 'member';
  const api = ApiClient.fromEnv(io.env);
  const created = await api.call(api.office.POST('/api/office/tokens', { body: { name, role } }));
  return emit(io, values, created, (t) => `Created ${t.role} token '${t.name}' (${t.id}). Its secret is shown only now; keep it:\n${t.token}`);
}

async function tokensList(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, {}, 0);
  const api = ApiClient.fromEnv(io.env);
  const tokens = await api.call(api.office.GET('/api/office/tokens'));
  return emit(io, values, tokens, (list) => (list.length === 0
    ? 'No tokens (only OFFICE_API_TOKEN).'
    : table(['ID', 'NAME', 'ROLE', 'CREATED', 'REVOKED'], list.map((t) => [t.id, t.name, t.role, time(t.created_at), t.revoked_at ? time(t.revoked_at) : '-']))));
}

async function tokensRevoke(args: string[], io: Io): Promise<number> {
  const { values, argument: id } = withArgument(args, {}, 'tokens revoke needs a token id: office-scheduler tokens revoke <id> (see tokens list)');
  const api = ApiClient.fromEnv(io.env);
  await api.call(api.office.DELETE('/api/office/tokens/{id}', { params: { path: { id } } }));
  return emit(io, values, { id, revoked: true }, () => `Revoked token ${id}: it is refused from now on, and its active routines are paused until an admin gives them a new owner.`);
}

export const tokens: Command = {
  name: 'tokens',
  summary: 'Named API tokens with a role (admin only)',
  forms: {
    create: { synopsis: 'create <name> [--role member|admin]', does: 'create a named API token; its secret is printed once', run: tokensCreate },
    list: { synopsis: 'list', does: 'the API tokens, revoked ones too, without secrets', run: tokensList },
    revoke: { synopsis: 'revoke <id>', does: 'revoke a token: it gets 401s, and its routines pause', run: tokensRevoke },
  },
};
