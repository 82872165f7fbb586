/**
 * Naming things on the command line: a workspace or an agent is given by its id or by its name,
 * as people know them ("Hello bot"), and resolved against the API's lists before the command's
 * own request. An id always wins over a name; a name matches exactly first, then ignoring case.
 * A name that matches several is refused, naming each with its id, rather than guessed.
 */
import type { Schemas } from '../client/index.js';
import { text, type Values } from './args.js';
import { ApiClient, CliError, EXIT } from './client.js';

export interface Named { id: string; name: string }
export type Workspace = Schemas['Workspace'];
export type Agent = Schemas['Agent'];

/** How many candidates an error lists before it says how many more there are: a screenful, not a dump. */
const MAX_LISTED_CANDIDATES = 10;

export async function listWorkspaces(api: ApiClient): Promise<Workspace[]> {
  return api.call(api.office.GET('/api/office/workspaces'));
}

export async function listAgents(api: ApiClient, workspaceId?: string): Promise<Agent[]> {
  return api.call(api.office.GET('/api/office/agents', { params: { query: workspaceQuery(workspaceId) } }));
}

/** Workspace names by id: the one workspace given, or all of them. */
export async function workspaceNames(api: ApiClient, only?: Workspace): Promise<Map<string, string>> {
  const workspaces = only ? [only] : await listWorkspaces(api);
  return new Map(workspaces.map((w) => [w.id, w.name]));
}

/** The `workspace_id` filter, when there is one. */
export function workspaceQuery(workspaceId: string | undefined): { workspace_id?: string } {
  return workspaceId ? { workspace_id: workspaceId } : {};
}

export async function resolveWorkspace(api: ApiClient, ref: string): Promise<Workspace> {
  const workspaces = await listWorkspaces(api);
  return pickByIdOrName(workspaces, ref, { kind: 'workspace', flag: '--workspace', describe: (w) => w.id });
}

/** An ambiguity error names each candidate's workspace, so the user can narrow it with --workspace; `flag` is where the name was given. */
export async function resolveAgent(api: ApiClient, ref: string, workspace?: Workspace, flag = '--agent'): Promise<Agent> {
  const [agents, workspaceName] = await Promise.all([listAgents(api, workspace?.id), workspaceNames(api, workspace)]);
  return pickByIdOrName(agents, ref, {
    kind: 'agent',
    flag,
    where: workspace ? ` in workspace '${workspace.name}'` : '',
    describe: (a) => `${a.id}, workspace '${workspaceName.get(a.workspace_id) ?? a.workspace_id}'`,
    narrowing: workspace ? '' : ', or narrow it with --workspace',
  });
}

interface Wording<T> {
  kind: string;
  flag: string;
  describe: (item: T) => string;
  where?: string;
  narrowing?: string;
}

/** The one item whose id is `ref`, else whose name is `ref` (exactly, then ignoring case); anything else is a CliError. */
export function pickByIdOrName<T extends Named>(items: T[], ref: string, wording: Wording<T>): T {
  const byId = items.find((item) => item.id === ref);
  if (byId) return byId;
  const exact = items.filter((item) => item.name === ref);
  const matches = exact.length > 0 ? exact : items.filter((item) => item.name.toLowerCase() === ref.toLowerCase());
  if (matches.length === 1) return matches[0]!;
  const where = wording.where ?? '';
  if (matches.length > 1) {
    throw new CliError(
      `${matches.length} ${wording.kind}s are named '${ref}'${where}: ${candidates(matches, wording.describe)}. Give ${wording.flag} the id${wording.narrowing ?? ''}.`,
      EXIT.api,
    );
  }
  const known = items.length > 0 ? `; the ${wording.kind}s are ${candidates(items, wording.describe)}` : `; there are no ${wording.kind}s`;
  throw new CliError(`no ${wording.kind} is named '${ref}' or has that id${where}${known}`, EXIT.api);
}

function candidates<T extends Named>(items: T[], describe: (item: T) => string): string {
  const listed = items.slice(0, MAX_LISTED_CANDIDATES).map((item) => `'${item.name}' (${describe(item)})`).join(', ');
  const more = items.length - MAX_LISTED_CANDIDATES;
  return more > 0 ? `${listed} and ${more} more` : listed;
}

/** Agent names by id, for tables that show who did what. */
export async function agentNames(api: ApiClient, workspaceId?: string): Promise<Map<string, string>> {
  return new Map((await listAgents(api, workspaceId)).map((a) => [a.id, a.name]));
}

/** The workspace that `--workspace` names, if given. */
export async function workspaceOption(api: ApiClient, values: Values): Promise<Workspace | undefined> {
  const ref = text(values, 'workspace');
  return ref === undefined ? undefined : resolveWorkspace(api, ref);
}

/** The agent that the option `name` names, if given, among the workspace's agents when there is one. */
export async function agentOption(api: ApiClient, values: Values, workspace: Workspace | undefined, name = 'agent'): Promise<Agent | undefined> {
  const ref = text(values, name);
  return ref === undefined ? undefined : resolveAgent(api, ref, workspace);
}
