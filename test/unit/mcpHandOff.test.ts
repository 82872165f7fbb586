/**
 * How each agent program is handed the scheduler's MCP server: through its own MCP option, with the
 * run token in a per-run file (mode 0600, in a folder of the run) or in the variable that already
 * holds it, never in an argument and never in the user's own config files.
 */
import { describe, expect, it } from 'vitest';
import { PROGRAM_ADAPTERS } from '../../src/executors/adapters/index.js';

const mcp = { url: 'http://127.0.0.1:7700/mcp', token: 'run-token-secret', dir: '/tmp/office-mcp-abc' };
const base = { prompt: 'P', model: undefined, resumeSessionId: null, extraArgs: ['--extra'] };

const noTokenIn = (args: string[]) => expect(args.join(' ')).not.toContain(mcp.token);

describe('MCP hand-off', () => {
  it('claude_code: --mcp-config <per-run file> and --allowedTools for the server, each followed by an option', () => {
    const invocation = PROGRAM_ADAPTERS.claude_code.invocation({ ...base, mcp });
    expect(invocation.args).toEqual([
      '-p', '--mcp-config', '/tmp/office-mcp-abc/claude-mcp.json', '--allowedTools', 'mcp__office-scheduler',
      '--output-format', 'stream-json', '--verbose', '--extra',
    ]);
    expect(invocation.files).toHaveLength(1);
    expect(invocation.files![0]!.path).toBe('/tmp/office-mcp-abc/claude-mcp.json');
    expect(JSON.parse(invocation.files![0]!.content)).toEqual({
      mcpServers: { 'office-scheduler': { type: 'http', url: mcp.url, headers: { Authorization: 'Bearer run-token-secret' } } },
    });
    noTokenIn(invocation.args);
  });

  it('codex: -c mcp_servers.office-scheduler.url and bearer_token_env_var, for this session only, with no file', () => {
    const invocation = PROGRAM_ADAPTERS.codex.invocation({ ...base, mcp });
    expect(invocation.args).toEqual([
      'exec', '-c', 'mcp_servers.office-scheduler.url="http://127.0.0.1:7700/mcp"', '-c', 'mcp_servers.office-scheduler.bearer_token_env_var="OFFICE_RUN_TOKEN"',
      '--json', '--skip-git-repo-check', '--extra', '-',
    ]);
    expect(invocation.files).toBeUndefined();
    noTokenIn(invocation.args);
  });

  it('gemini_cli: nothing, since its settings files are the user\'s own or root\'s', () => {
    const invocation = PROGRAM_ADAPTERS.gemini_cli.invocation({ ...base, mcp });
    expect(invocation).toEqual({ args: ['--output-format', 'stream-json', '--extra'], stdin: 'P' });
  });

  it('hands nothing over with no hand-off (an executor with mcp: false)', () => {
    for (const adapter of Object.values(PROGRAM_ADAPTERS)) {
      const invocation = adapter.invocation({ ...base, mcp: null });
      expect(invocation.files).toBeUndefined();
      expect(invocation.args.join(' ')).not.toMatch(/mcp/);
    }
  });
});
