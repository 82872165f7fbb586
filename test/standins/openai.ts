/**
 * A stand-in for OpenAI's Responses API (`POST <base_url>/responses`), as Codex CLI calls it through
 * a provider of its own in `CODEX_HOME/config.toml` (`wire_api = "responses"`): a streamed answer
 * (response.created, the output items, response.completed with usage), a call of Codex's shell tool,
 * the 429 `usage_limit_reached` a ChatGPT plan's limit answers, or a stream that stalls. Anything
 * else (the model list) is answered small.
 */
import { DEFAULT_TEXT, epochIn, sendEvent, sendJson, startEventStream, startStandin, type Exchange, type Standin } from './server.js';

/**
 * The usage every answer reports: the figures of the capture the recordings began with (1200 input,
 * 1000 of them cached, 30 output, 8 of them reasoning). Codex reports a thread's running total, so a
 * resumed thread's second turn says 2400/2000/60.
 */
export const OPENAI_USAGE = { input_tokens: 1200, cached_tokens: 1000, output_tokens: 30, reasoning_tokens: 8 };

export function startOpenAiStandin(): Promise<Standin> {
  let responseCount = 0;
  return startStandin((exchange) => {
    const { req, res } = exchange;
    const path = (req.url ?? '/').split('?')[0]!;
    if (req.method === 'GET' && path.endsWith('/models')) return sendJson(res, 200, { object: 'list', data: [], models: [] });
    if (req.method !== 'POST' || !path.endsWith('/responses')) return sendJson(res, 404, { error: { message: `no ${req.method} ${path} here`, type: 'invalid_request_error' } });
    responseCount += 1;
    answer(exchange, `resp_standin_${responseCount}`);
  });
}

/** The name of the shell tool the request offers (Codex's tool set changes between versions). */
function shellToolOf(body: any): { name: string; freeform: boolean } {
  const tools: any[] = Array.isArray(body?.tools) ? body.tools : [];
  const names = tools.map((tool) => String(tool?.name ?? tool?.type ?? ''));
  const name = ['exec_command', 'shell_command', 'shell', 'local_shell'].find((candidate) => names.includes(candidate)) ?? 'shell';
  return { name, freeform: tools.find((tool) => tool?.name === name)?.type === 'custom' };
}

function answer(exchange: Exchange, id: string): void {
  const { res, body } = exchange;
  const reply = exchange.nextReply();
  const model = String(body?.model ?? 'gpt-standin');
  if (reply.kind === 'rate_limit') {
    // What a ChatGPT plan's usage limit answers (the body Codex turns into "You've hit your usage limit").
    return sendJson(res, 429, {
      error: {
        type: 'usage_limit_reached', message: 'The usage limit has been reached', plan_type: 'pro',
        resets_at: epochIn(reply.resetInSec), resets_in_seconds: reply.resetInSec,
      },
    });
  }
  startEventStream(res);
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>) => sendEvent(res, { type, sequence_number: sequence++, ...data }, type);
  const response = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model, status: 'in_progress', output: [] as unknown[] };
  event('response.created', { response });
  event('response.in_progress', { response });
  if (reply.kind === 'stall') return;
  let item: Record<string, unknown>;
  if (reply.kind === 'tool') {
    const tool = shellToolOf(body);
    const args = tool.name === 'exec_command' ? { cmd: reply.command } : tool.name === 'shell_command' ? { command: reply.command } : { command: ['bash', '-lc', reply.command] };
    item = { type: 'function_call', id: `fc_${id}`, call_id: `call_${id}`, name: tool.name, arguments: JSON.stringify(args), status: 'completed' };
    event('response.output_item.added', { output_index: 0, item: { ...item, arguments: '' } });
    event('response.function_call_arguments.delta', { output_index: 0, item_id: item.id, delta: item.arguments });
    event('response.function_call_arguments.done', { output_index: 0, item_id: item.id, arguments: item.arguments });
  } else {
    const text = reply.text ?? DEFAULT_TEXT;
    item = { type: 'message', id: `msg_${id}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
    event('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
    event('response.content_part.added', { output_index: 0, item_id: item.id, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
    event('response.output_text.delta', { output_index: 0, item_id: item.id, content_index: 0, delta: text });
    event('response.output_text.done', { output_index: 0, item_id: item.id, content_index: 0, text });
    event('response.content_part.done', { output_index: 0, item_id: item.id, content_index: 0, part: { type: 'output_text', text, annotations: [] } });
  }
  event('response.output_item.done', { output_index: 0, item });
  const usage = {
    input_tokens: OPENAI_USAGE.input_tokens, input_tokens_details: { cached_tokens: OPENAI_USAGE.cached_tokens },
    output_tokens: OPENAI_USAGE.output_tokens, output_tokens_details: { reasoning_tokens: OPENAI_USAGE.reasoning_tokens },
    total_tokens: OPENAI_USAGE.input_tokens + OPENAI_USAGE.output_tokens,
  };
  event('response.completed', { response: { ...response, status: 'completed', output: [item], usage } });
  res.end();
}
