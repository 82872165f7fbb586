/**
 * A stand-in for Google's Gemini API (`POST /v1beta/models/<model>:streamGenerateContent?alt=sse`
 * and `:generateContent`), as Gemini CLI calls it with `GOOGLE_GEMINI_BASE_URL` and an API key: a
 * streamed answer with `usageMetadata`, a `run_shell_command` function call, the 429
 * `RESOURCE_EXHAUSTED` of an exhausted capacity with its `google.rpc.RetryInfo`, or a stream that
 * stalls. Token counting and anything else are answered small.
 */
import type { ServerResponse } from 'node:http';
import { DEFAULT_TEXT, sendEvent, sendJson, startEventStream, startStandin, type Exchange, type Reply, type Standin } from './server.js';

/**
 * The usage every answer reports: the figures of the capture the recordings began with (5200 prompt
 * tokens, 4000 of them cached, 12 candidates, 18 thoughts, 5230 in all).
 */
export const GOOGLE_USAGE = { promptTokenCount: 5200, cachedContentTokenCount: 4000, candidatesTokenCount: 12, thoughtsTokenCount: 18, totalTokenCount: 5230 };

/** "1h49m8s": how the capacity error names its reset, and how Gemini CLI passes it on. */
export function resetText(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return `${h > 0 ? `${h}h` : ''}${h > 0 || m > 0 ? `${m}m` : ''}${s}s`;
}

export function startGoogleStandin(): Promise<Standin> {
  let responseCount = 0;
  return startStandin((exchange) => {
    const { req, res } = exchange;
    const path = (req.url ?? '/').split('?')[0]!;
    const method = /:(\w+)$/.exec(path)?.[1];
    if (req.method !== 'POST' || !method) return sendJson(res, 404, { error: { code: 404, message: `no ${req.method} ${path} here`, status: 'NOT_FOUND' } });
    if (method === 'countTokens') return sendJson(res, 200, { totalTokens: GOOGLE_USAGE.promptTokenCount });
    if (method === 'streamGenerateContent' || method === 'generateContent') {
      responseCount += 1;
      return answer(exchange, `standin-${responseCount}`, method === 'streamGenerateContent', /models\/([^:]+):/.exec(path)?.[1] ?? 'gemini-standin');
    }
    sendJson(res, 404, { error: { code: 404, message: `no method ${method} here`, status: 'NOT_FOUND' } });
  });
}

function answer(exchange: Exchange, responseId: string, streamed: boolean, model: string): void {
  const { res } = exchange;
  const reply: Reply = exchange.nextReply();
  if (reply.kind === 'rate_limit') return quotaExhausted(res, reply.resetInSec, model);
  const chunk = (parts: unknown[], finishReason?: string) => ({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(finishReason ? { finishReason } : {}) }],
    usageMetadata: GOOGLE_USAGE, modelVersion: model, responseId,
  });
  const parts = reply.kind === 'tool'
    ? [{ functionCall: { name: 'run_shell_command', args: { command: reply.command, description: 'Run the command' } } }]
    : [{ text: reply.kind === 'text' ? (reply.text ?? DEFAULT_TEXT) : '' }];
  if (!streamed) {
    if (reply.kind === 'stall') return;
    return sendJson(res, 200, chunk(parts, 'STOP'));
  }
  startEventStream(res);
  if (reply.kind === 'stall') {
    sendEvent(res, chunk([{ text: 'Hello' }]));
    return;
  }
  sendEvent(res, chunk(parts, 'STOP'));
  res.end();
}

/** An exhausted capacity, as Gemini's quota errors say it: Gemini CLI sleeps until the reset and tries again. */
function quotaExhausted(res: ServerResponse, resetInSec: number, model: string): void {
  sendJson(res, 429, {
    error: {
      code: 429,
      message: `You have exhausted your capacity on this model. Your quota will reset after ${resetText(resetInSec)}.`,
      status: 'RESOURCE_EXHAUSTED',
      details: [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'QUOTA_EXHAUSTED', domain: 'cloudcode-pa.googleapis.com', metadata: { uiMessage: 'true', model } },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${resetInSec}s` },
      ],
    },
  });
}
