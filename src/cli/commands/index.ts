/** The commands that talk to a running scheduler, in the order the help lists them. A new one is an entry here. */
import type { Command } from '../command.js';
import { agents, wakeCommand } from './agents.js';
import { routines } from './routines.js';
import { cancelCommand, quotasCommand, runs } from './runs.js';
import { tasks } from './tasks.js';
import { tokens } from './tokens.js';
import { wakeups } from './wakeups.js';

export const API_COMMANDS: readonly Command[] = [agents, tasks, runs, wakeCommand, cancelCommand, wakeups, routines, quotasCommand, tokens];
