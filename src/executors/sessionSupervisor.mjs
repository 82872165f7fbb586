// The session supervisor: one per command session, between the scheduler and the agent.
//
// It runs the agent in a process group of its own (so a kill reaches everything the agent started)
// and kills that group when its IPC channel to the scheduler closes, which is how it learns that the
// scheduler died, however it died (SIGKILL included). The agent inherits the supervisor's stdin,
// stdout and stderr, which are the scheduler's pipes, so its output goes straight to the scheduler.
//
// Protocol (Node IPC, both ways):
//   scheduler -> {type:'launch', command, args, cwd, env, killGraceMs}   once, first
//   scheduler -> {type:'stop'}                                           kill the group (timeout, abort)
//   supervisor -> {type:'started', pid}                                  the agent runs; pid is its group
//   supervisor -> {type:'error', message}                                the agent could not be started
//   supervisor -> {type:'exit', code, signal}                            the agent ended
//
// Plain JavaScript with no imports beyond Node's, so starting it costs as little as a Node start can.
import { spawn } from 'node:child_process';

let launched = false;
let agentPid = null;
let agentEnded = false;
let stopping = false;
let killGraceMs = 2000;

// Signals meant for the scheduler's process group (Ctrl-C, a closed terminal, `kill -TERM -pgid`) are
// the scheduler's to act on: it drains, then stops its sessions through this supervisor.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => {});

function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

function signalGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is gone.
  }
}

/** Sends a message to the scheduler, then calls `then` (also when there is no one left to tell). */
function report(message, then = () => {}) {
  if (!process.connected) return then();
  process.send(message, () => then());
}

/** SIGTERM the agent's group; SIGKILL whatever is left of it after the grace period; then leave. */
function stopAgent() {
  if (stopping) return;
  stopping = true;
  if (agentPid === null || (agentEnded && !groupAlive(agentPid))) process.exit(0);
  const pgid = agentPid;
  signalGroup(pgid, 'SIGTERM');
  setTimeout(() => {
    if (groupAlive(pgid)) signalGroup(pgid, 'SIGKILL');
    process.exit(0);
  }, killGraceMs);
}

function launch({ command, args, cwd, env, killGraceMs: grace }) {
  launched = true;
  if (typeof grace === 'number') killGraceMs = grace;
  let agent;
  try {
    agent = spawn(command, args ?? [], { cwd, env, stdio: 'inherit', detached: true, shell: false, windowsHide: true });
  } catch (error) {
    // Invalid arguments (a NUL byte, say) throw instead of emitting 'error'.
    report({ type: 'error', message: error.message || String(error) }, () => process.exit(0));
    return;
  }
  // Known as soon as the process exists, so a stop that comes before 'spawn' still reaches it.
  agentPid = agent.pid ?? null;
  let started = false;
  agent.once('spawn', () => {
    started = true;
    report({ type: 'started', pid: agent.pid });
  });
  agent.on('error', (error) => {
    // After a successful spawn an error is a failed kill, which does not end the session.
    if (started) return;
    agentEnded = true;
    report({ type: 'error', message: error.message || String(error) }, () => process.exit(0));
  });
  agent.once('exit', (code, signal) => {
    if (!started) return; // never started: 'error' reports it
    agentEnded = true;
    // While a stop is under way its timer still SIGKILLs whatever the agent left in its group.
    report({ type: 'exit', code, signal }, () => {
      if (!stopping || !groupAlive(agentPid)) process.exit(0);
    });
  });
}

process.on('message', (message) => {
  if (message?.type === 'launch' && !launched) launch(message);
  else if (message?.type === 'stop') stopAgent();
});

// The scheduler is gone: nothing of this session may outlive it.
process.on('disconnect', () => {
  if (agentEnded) process.exit(0);
  stopAgent();
});

process.on('uncaughtException', (error) => {
  process.stderr.write(`session supervisor: ${error?.stack ?? error}\n`);
  if (agentPid !== null) signalGroup(agentPid, 'SIGKILL');
  process.exit(70);
});
