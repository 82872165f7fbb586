/**
 * `office-scheduler mcp`: the agents' MCP server over stdio, for a program that starts its MCP
 * servers as commands. It acts with the run's OFFICE_RUN_TOKEN through the HTTP API at
 * OFFICE_API_URL, so it can do exactly what the token may; stdout is the protocol's, and every
 * other word goes to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ApiRefusal, createOfficeMcpServer, identityOfRun, type OfficeApi } from '../http/mcp/tools.js';
import { CliError, EXIT, apiUrlFromEnv } from './client.js';

function httpApi(baseUrl: string, token: string): OfficeApi {
  return {
    async call(method, path, body) {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
  };
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new CliError(`mcp: ${name} is not set; the scheduler sets it in every agent session's environment`, EXIT.usage);
  return value;
}

/** Serves until the client closes stdin. */
export async function mcpStdio(env: NodeJS.ProcessEnv): Promise<number> {
  const api = httpApi(apiUrlFromEnv(env).replace(/\/+$/, ''), required(env, 'OFFICE_RUN_TOKEN'));
  let identity;
  try {
    identity = await identityOfRun(api, required(env, 'OFFICE_RUN_ID'));
  } catch (error) {
    if (error instanceof CliError) throw error;
    const refused = error instanceof ApiRefusal;
    throw new CliError(`mcp: could not read this run from the scheduler: ${error instanceof Error ? error.message : String(error)}`, refused ? EXIT.api : EXIT.connect);
  }
  const server = createOfficeMcpServer(api, identity);
  const closed = new Promise<void>((resolve) => { server.server.onclose = resolve; });
  await server.connect(new StdioServerTransport());
  // The transport does not stop at the end of stdin by itself; a client closes by ending it.
  process.stdin.once('end', () => void server.close());
  await closed;
  return EXIT.ok;
}
