import type { AgentProgramKind } from '../../domain/agentPrograms.js';
import { claudeCode } from './claudeCode.js';
import { codex } from './codex.js';
import { geminiCli } from './geminiCli.js';
import type { ProgramAdapter } from './types.js';

/** One adapter per agent program the scheduler knows by name (API.md, "Agent CLIs"). */
export const PROGRAM_ADAPTERS: Readonly<Record<AgentProgramKind, ProgramAdapter>> = {
  claude_code: claudeCode,
  codex,
  gemini_cli: geminiCli,
};

export type { ProgramAdapter } from './types.js';
