/**
 * Reaches an agent over HTTP: one POST per run carrying the run identity and
 * prompt, authenticated with the run token; the JSON response is the result.
 * While tracing is on, the POST carries the run span as W3C `traceparent` (and `tracestate`), the
 * HTTP carrier, as a process session gets it in TRACEPARENT.
 */
import { describeError, failedResult, notStartedResult, okResult, resultFromBody, startStopwatch, tail, timedOutResult, timeoutMs } from './output.js';
import type { Executor, HttpExecutorSpec, LaunchRequest } from './types.js';

export function httpRequestBody(request: LaunchRequest): Record<string, unknown> {
  return {
    run_id: request.runId,
    wakeup_id: request.wakeupId,
    agent_id: request.agentId,
    workspace_id: request.workspaceId,
    task_id: request.taskId,
    source: request.source,
    prompt: request.prompt,
    context: request.context,
  };
}

function requestHeaders(spec: HttpExecutorSpec, request: LaunchRequest): Headers {
  const headers = new Headers({ 'content-type': 'application/json' });
  for (const [name, value] of Object.entries(spec.headers ?? {})) headers.set(name, value);
  // An explicit authorization header (any casing) wins over the run token.
  if (!headers.has('authorization')) headers.set('authorization', `Bearer ${request.runToken}`);
  // The run's own span wins over a configured one: a fixed traceparent would put every run in one trace.
  if (request.traceContext) {
    headers.set('traceparent', request.traceContext.traceparent);
    if (request.traceContext.tracestate) headers.set('tracestate', request.traceContext.tracestate);
    else headers.delete('tracestate');
  }
  return headers;
}

function httpFailureText(response: Response, body: string): string {
  const parts = [`HTTP ${response.status} ${response.statusText}`.trim()];
  const retryAfter = response.headers.get('retry-after');
  if (retryAfter !== null) parts.push(`Retry-After: ${retryAfter}`);
  const bodyTail = tail(body);
  if (bodyTail) parts.push(bodyTail);
  return parts.join('\n');
}

export const httpExecutor: Executor<HttpExecutorSpec> = {
  async launch(spec, request) {
    const elapsed = startStopwatch();
    if (request.signal?.aborted) return failedResult('aborted before start', elapsed());
    if (request.mayStart && !(await request.mayStart())) return notStartedResult(elapsed());

    const controller = new AbortController();
    let timedOut = false;
    const delay = timeoutMs(spec.timeout_sec);
    const timer = delay === null ? undefined : setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, delay);
    const onAbort = () => controller.abort();
    request.signal?.addEventListener('abort', onAbort, { once: true });

    try {
      let headers: Headers;
      let body: string;
      try {
        headers = requestHeaders(spec, request);
        body = JSON.stringify(httpRequestBody(request));
      } catch (error) {
        // Invalid header names/values, or an unserialisable context.
        return failedResult(describeError(error), elapsed());
      }
      request.onStarted?.();
      const response = await fetch(spec.url, { method: 'POST', headers, body, signal: controller.signal });
      // The body read is covered by the same timeout/abort signal.
      const text = await response.text();
      if (response.ok) return okResult(resultFromBody(text), elapsed());
      return failedResult(httpFailureText(response, text), elapsed());
    } catch (error) {
      if (timedOut) return timedOutResult(elapsed());
      if (request.signal?.aborted) return failedResult('aborted', elapsed());
      return failedResult(describeError(error), elapsed());
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
    }
  },
};
