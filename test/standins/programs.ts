/**
 * The real agent programs against their stand-ins: where the pinned programs are installed
 * (scripts/agent-programs.json, installed by scripts/install-agent-programs.mjs into .agent-programs),
 * and what each needs to run offline against its stand-in, as a user would point it at another
 * endpoint: its base URL and credential in the environment (Claude Code, Gemini CLI) or a provider
 * of its own in CODEX_HOME/config.toml (Codex CLI), a home of its own, and a model named on the
 * command line. Used by the real-program tests and by scripts/record-agent-programs.ts.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentProgramKind } from '../../src/domain/agentPrograms.js';
import { startAnthropicStandin } from './anthropic.js';
import { startGoogleStandin } from './google.js';
import { startOpenAiStandin } from './openai.js';
import type { Standin } from './server.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The pins: one place for the versions the tests run and `npm run agents:update` moves. */
export const PINS_FILE = join(ROOT, 'scripts', 'agent-programs.json');
export const AGENT_PROGRAMS_DIR = resolve(ROOT, process.env.OFFICE_AGENT_PROGRAMS_DIR ?? '.agent-programs');

export interface Pin {
  package: string;
  version: string;
  bin: string;
}

export function pins(): Record<AgentProgramKind, Pin> {
  return JSON.parse(readFileSync(PINS_FILE, 'utf8')) as Record<AgentProgramKind, Pin>;
}

export interface RealProgram extends Pin {
  kind: AgentProgramKind;
  /** The installed program's path: the executor's `command`. */
  command: string;
}

/** The pinned program as installed in the cache folder, or why it cannot be run. */
export function findProgram(kind: AgentProgramKind): RealProgram | { absent: string } {
  const pin = pins()[kind];
  const manifest = join(AGENT_PROGRAMS_DIR, 'node_modules', pin.package, 'package.json');
  const command = join(AGENT_PROGRAMS_DIR, 'node_modules', '.bin', pin.bin);
  const install = 'run `npm run agents:install` (scripts/install-agent-programs.mjs) to install it';
  if (!existsSync(manifest) || !existsSync(command)) return { absent: `${pin.package}@${pin.version} is not installed in ${AGENT_PROGRAMS_DIR}: ${install}` };
  const version = (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
  if (version !== pin.version) return { absent: `${pin.package} ${version} is installed in ${AGENT_PROGRAMS_DIR}, but ${pin.version} is pinned: ${install}` };
  return { ...pin, kind, command };
}

/** The model each program is told to use: Claude Code knows its price; Gemini CLI must be told one, or its router loops. */
export const MODELS: Readonly<Record<AgentProgramKind, string>> = {
  claude_code: 'claude-opus-5-5',
  codex: 'gpt-5.5',
  gemini_cli: 'gemini-2.5-flash',
};

/** How a session proves who it is to the stand-in. Claude Code prints rate_limit_event lines for a subscription only. */
export type Auth = 'api_key' | 'subscription';

export interface ProgramSetup {
  standin: Standin;
  model: string;
  /** The session's working directory: Claude Code and Gemini CLI keep sessions per project. */
  cwd: string;
  /** The variables that point the program at its stand-in, with a home of its own. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** The variable the Codex provider reads its key from (`env_key`). */
export const CODEX_KEY_VARIABLE = 'OFFICE_STANDIN_OPENAI_KEY';

/** Starts the program's stand-in and lays out a home for the program under `dir`. */
export async function setUpProgram(kind: AgentProgramKind, dir: string, auth: Auth = 'api_key'): Promise<ProgramSetup> {
  const home = join(dir, `${kind}-home`);
  const cwd = join(dir, `${kind}-work`);
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const standin = kind === 'claude_code' ? await startAnthropicStandin() : kind === 'codex' ? await startOpenAiStandin() : await startGoogleStandin();
  const env = environmentOf(kind, home, standin.url, auth);
  return { standin, model: MODELS[kind], cwd, env, close: () => standin.close() };
}

function environmentOf(kind: AgentProgramKind, home: string, url: string, auth: Auth): Record<string, string> {
  switch (kind) {
    case 'claude_code':
      return {
        HOME: home,
        CLAUDE_CONFIG_DIR: join(home, '.claude'),
        ANTHROPIC_BASE_URL: url,
        ...(auth === 'subscription' ? { CLAUDE_CODE_OAUTH_TOKEN: 'standin-oauth-token' } : { ANTHROPIC_API_KEY: 'standin-api-key' }),
        // No telemetry, update checks or error reports: the machine has no network, and nothing leaves it.
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      };
    case 'codex': {
      const codexHome = join(home, '.codex');
      mkdirSync(codexHome, { recursive: true });
      // Codex ignores OPENAI_BASE_URL (openai/codex PR #16720): another endpoint is a provider of its own.
      writeFileSync(join(codexHome, 'config.toml'), [
        'model_provider = "standin"',
        'check_for_update_on_startup = false',
        '',
        '[model_providers.standin]',
        'name = "Responses API stand-in"',
        `base_url = "${url}/v1"`,
        `env_key = "${CODEX_KEY_VARIABLE}"`,
        'wire_api = "responses"',
        '',
        '[analytics]',
        'enabled = false',
        '',
      ].join('\n'));
      return { HOME: home, CODEX_HOME: codexHome, [CODEX_KEY_VARIABLE]: 'standin-api-key' };
    }
    case 'gemini_cli': {
      mkdirSync(join(home, '.gemini'), { recursive: true });
      // With GOOGLE_GEMINI_BASE_URL alone Gemini CLI would choose its `gateway` auth; the API key is chosen here.
      writeFileSync(join(home, '.gemini', 'settings.json'), `${JSON.stringify({
        security: { auth: { selectedType: 'gemini-api-key' } },
        privacy: { usageStatisticsEnabled: false },
        general: { disableAutoUpdate: true },
      }, null, 2)}\n`);
      return { HOME: home, GEMINI_CLI_HOME: home, GOOGLE_GEMINI_BASE_URL: url, GEMINI_API_KEY: 'standin-api-key', GEMINI_CLI_TRUST_WORKSPACE: 'true' };
    }
  }
}
