/**
 * A stand-in for Anthropic's Messages API (`POST /v1/messages`), as Claude Code calls it with
 * `ANTHROPIC_BASE_URL`: a streamed answer (message_start … message_stop) with usage, a `Bash` tool
 * call, the `rate_limit_error` 429 with the `anthropic-ratelimit-unified-*` headers a subscription's
 * limit carries, or a stream that stalls. Anything else (`HEAD /`, token counting) is answered small.
 */
import type { ServerResponse } from 'node:http';
import { DEFAULT_TEXT, epochIn, sendEvent, sendJson, startEventStream, startStandin, type Exchange, type Standin } from './server.js';

/**
 * The usage every answer reports: the figures of the capture the recordings began with (11 input,
 * 7 read from the cache, 3 written to it, 6 output), so a fresh run of claude-opus-5-5 costs what
 * they say, 0.0001804 USD.
 */
export const ANTHROPIC_USAGE = { input_tokens: 11, cache_read_input_tokens: 7, cache_creation_input_tokens: 3, output_tokens: 6 };

export function startAnthropicStandin(): Promise<Standin> {
  let messageCount = 0;
  return startStandin((exchange) => {
    const { req, res, body } = exchange;
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'POST' && path === '/v1/messages/count_tokens') return sendJson(res, 200, { input_tokens: ANTHROPIC_USAGE.input_tokens });
    if (req.method !== 'POST' || path !== '/v1/messages') return sendJson(res, 200, {});
    messageCount += 1;
    answer(exchange, `msg_standin_${messageCount}`, String(body?.model ?? 'claude-standin'));
  });
}

function answer(exchange: Exchange, id: string, model: string): void {
  const { res } = exchange;
  const reply = exchange.nextReply();
  if (reply.kind === 'rate_limit') return rateLimited(exchange, reply.resetInSec);
  startEventStream(res, { 'request-id': 'req_standin' });
  const event = (type: string, data: Record<string, unknown>) => sendEvent(res, { type, ...data }, type);
  event('message_start', {
    message: {
      id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null,
      usage: { input_tokens: ANTHROPIC_USAGE.input_tokens, cache_read_input_tokens: ANTHROPIC_USAGE.cache_read_input_tokens, cache_creation_input_tokens: ANTHROPIC_USAGE.cache_creation_input_tokens, output_tokens: 1 },
    },
  });
  if (reply.kind === 'stall') return;
  if (reply.kind === 'tool') {
    event('content_block_start', { index: 0, content_block: { type: 'tool_use', id: `toolu_${id}`, name: 'Bash', input: {} } });
    event('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify({ command: reply.command, description: 'Run the command' }) } });
    event('content_block_stop', { index: 0 });
    return finish(res, event, 'tool_use');
  }
  event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
  event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: reply.text ?? DEFAULT_TEXT } });
  event('content_block_stop', { index: 0 });
  finish(res, event, 'end_turn');
}

/**
 * A 429 `rate_limit_error`. A subscription (an OAuth bearer token) is told which of its limits it hit
 * and when that resets, in the `anthropic-ratelimit-unified-*` headers that Claude Code turns into its
 * rate_limit_event and its "You've hit your 5-hour limit · resets …" text; an API key gets the
 * request limit's headers, which name no reset Claude Code passes on.
 */
function rateLimited(exchange: Exchange, resetInSec: number): void {
  const { req, res } = exchange;
  const reset = epochIn(resetInSec);
  const subscription = typeof req.headers.authorization === 'string' && !req.headers['x-api-key'];
  const limitHeaders: Record<string, string> = subscription
    ? {
      'anthropic-ratelimit-unified-status': 'rejected',
      'anthropic-ratelimit-unified-reset': String(reset),
      'anthropic-ratelimit-unified-representative-claim': 'five_hour',
      'anthropic-ratelimit-unified-5h-status': 'rejected',
      'anthropic-ratelimit-unified-5h-reset': String(reset),
      'anthropic-ratelimit-unified-5h-utilization': '1.0',
      'anthropic-ratelimit-unified-overage-status': 'rejected',
      'anthropic-ratelimit-unified-overage-disabled-reason': 'org_level_disabled',
    }
    : {
      'anthropic-ratelimit-requests-limit': '50',
      'anthropic-ratelimit-requests-remaining': '0',
      'anthropic-ratelimit-requests-reset': new Date(reset * 1000).toISOString(),
    };
  sendJson(res, 429, { type: 'error', error: { type: 'rate_limit_error', message: 'This request would exceed your rate limit.' } }, {
    ...limitHeaders,
    'retry-after': String(resetInSec),
    // Without it the client retries the 429 itself, ten times over minutes.
    'x-should-retry': 'false',
    'request-id': 'req_standin',
  });
}

function finish(res: ServerResponse, event: (type: string, data: Record<string, unknown>) => void, stopReason: string): void {
  event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: ANTHROPIC_USAGE.output_tokens } });
  event('message_stop', {});
  res.end();
}
