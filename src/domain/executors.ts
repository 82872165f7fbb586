import { z } from 'zod';

/** How a run reaches an agent. `function` is in-process, for embedding and benchmarks. */
export const CommandExecutorSchema = z.strictObject({
  kind: z.literal('command'),
  command: z.string().min(1).max(4096),
  args: z.array(z.string().max(65_536)).max(1000).optional(),
  cwd: z.string().max(4096).optional(),
  env: z.record(z.string().max(256), z.string().max(65_536)).optional(),
  timeout_sec: z.number().positive().max(7 * 86_400).optional(),
});

export const HttpExecutorSchema = z.strictObject({
  kind: z.literal('http'),
  url: z.url({ protocol: /^https?$/ }).max(4096),
  headers: z.record(z.string().max(256), z.string().max(8192)).optional(),
  timeout_sec: z.number().positive().max(7 * 86_400).optional(),
});

export const FunctionExecutorSchema = z.strictObject({
  kind: z.literal('function'),
  name: z.string().min(1).max(256),
  timeout_sec: z.number().positive().max(7 * 86_400).optional(),
});

export const ExecutorSpecSchema = z.discriminatedUnion('kind', [
  CommandExecutorSchema,
  HttpExecutorSchema,
  FunctionExecutorSchema,
]);
export type ExecutorSpec = z.infer<typeof ExecutorSpecSchema>;

export interface ExecutorCandidates {
  task: ExecutorSpec | null;
  agent: ExecutorSpec | null;
  project: ExecutorSpec | null;
  workspace: ExecutorSpec | null;
}

/** Task override, then agent preference, then project default, then workspace default. */
export function resolveExecutor(candidates: ExecutorCandidates): { spec: ExecutorSpec; from: keyof ExecutorCandidates } | null {
  const order: (keyof ExecutorCandidates)[] = ['task', 'agent', 'project', 'workspace'];
  for (const from of order) {
    const spec = candidates[from];
    if (spec) return { spec, from };
  }
  return null;
}
