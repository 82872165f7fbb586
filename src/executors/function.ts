/**
 * Runs an agent in-process as a registered function, for embedding and
 * benchmarks. A timeout or abort ends the run, not the function: JavaScript
 * cannot stop it, so its eventual outcome is ignored.
 */
import { describeError, failedResult, isPlainObject, okResult, startStopwatch, timedOutResult, timeoutMs } from './output.js';
import type { AgentFunction, Executor, FunctionExecutorSpec, LaunchResult } from './types.js';

export function functionExecutor(registry: Map<string, AgentFunction>): Executor<FunctionExecutorSpec> {
  return {
    async launch(spec, request) {
      const elapsed = startStopwatch();
      const fn = registry.get(spec.name);
      if (!fn) return failedResult(`no function registered as '${spec.name}'`, elapsed());
      if (request.signal?.aborted) return failedResult('aborted before start', elapsed());

      const cleanups: (() => void)[] = [];
      const contenders: Promise<LaunchResult>[] = [];

      request.onStarted?.();
      // Promise.resolve().then turns a synchronous throw into a rejection.
      contenders.push(
        Promise.resolve()
          .then(() => fn(request))
          .then(
            (value): LaunchResult => {
              if (value === undefined || value === null) return okResult({}, elapsed());
              return okResult(isPlainObject(value) ? value : { result: value }, elapsed());
            },
            (error: unknown) => failedResult(describeError(error), elapsed()),
          ),
      );

      const delay = timeoutMs(spec.timeout_sec);
      if (delay !== null) {
        contenders.push(
          new Promise((resolve) => {
            const timer = setTimeout(
              () => resolve(timedOutResult(elapsed())),
              delay,
            );
            cleanups.push(() => clearTimeout(timer));
          }),
        );
      }

      const signal = request.signal;
      if (signal) {
        contenders.push(
          new Promise((resolve) => {
            const onAbort = () => resolve(failedResult('aborted', elapsed()));
            signal.addEventListener('abort', onAbort, { once: true });
            cleanups.push(() => signal.removeEventListener('abort', onAbort));
          }),
        );
      }

      try {
        return await Promise.race(contenders);
      } finally {
        for (const cleanup of cleanups) cleanup();
      }
    },
  };
}
