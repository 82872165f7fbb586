/**
 * What the three model-API stand-ins share (anthropic.ts, openai.ts, google.ts): a node:http server
 * on 127.0.0.1 that records every request it is sent, and a plan of how to answer the model requests
 * (the conversation's turns) in order: a text, a tool call, the provider's own rate-limit error, or a
 * stream that starts and never ends. Requests past the plan get the default text answer. Each
 * provider's module speaks its own wire format over this.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How a stand-in answers one model request. */
export type Reply =
  /** A streamed answer, with usage. */
  | { kind: 'text'; text?: string }
  /** A shell command for the program to run with its own shell tool; the request that carries its result takes the next reply. */
  | { kind: 'tool'; command: string }
  /** The provider's own rate-limit or quota error, naming a reset `resetInSec` from now. */
  | { kind: 'rate_limit'; resetInSec: number }
  /** The stream starts and never ends: the program waits until it is stopped (a cancel, a timeout). */
  | { kind: 'stall' };

/** The answer a stand-in gives where its plan says nothing more. */
export const DEFAULT_TEXT = 'Done: the task is handled.';

export interface RecordedRequest {
  method: string;
  /** The path with its query string. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The body parsed as JSON, or the raw text when it is not JSON. */
  body: any;
  /** Whether this request was a model request, and what it was answered with. */
  reply: Reply | null;
}

export interface Standin {
  url: string;
  /** Every request the stand-in was sent, in order. */
  readonly requests: RecordedRequest[];
  /** The model requests only: the conversation as the program sent it, turn by turn. */
  turns(): RecordedRequest[];
  /** How to answer the next model requests, in order (added after any still planned). */
  plan(...replies: Reply[]): void;
  close(): Promise<void>;
}

export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** The parsed body (see RecordedRequest.body). */
  body: any;
  /** Takes the next planned reply: call it only for a model request. */
  nextReply(): Reply;
  /** Marks the request a model request answered with `reply` (nextReply does this). */
  recorded: RecordedRequest;
}

/** Starts a stand-in whose `handle` answers each request in the provider's format. */
export async function startStandin(handle: (exchange: Exchange) => void): Promise<Standin> {
  const requests: RecordedRequest[] = [];
  const planned: Reply[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const recorded: RecordedRequest = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: parseBody(text), reply: null };
      requests.push(recorded);
      const exchange: Exchange = {
        req, res, body: recorded.body, recorded,
        nextReply() {
          recorded.reply = planned.shift() ?? { kind: 'text' };
          return recorded.reply;
        },
      };
      try {
        handle(exchange);
      } catch (error) {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `stand-in failed: ${String(error)}` } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    turns: () => requests.filter((r) => r.reply !== null),
    plan: (...replies) => { planned.push(...replies); },
    async close() {
      // A stalled stream holds its connection open: close them all, then the server.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function parseBody(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Starts a server-sent event stream. */
export function startEventStream(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...headers });
}

/** Writes one server-sent event: `event:` only where the provider names its events (Anthropic, OpenAI). */
export function sendEvent(res: ServerResponse, data: unknown, event?: string): void {
  res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
}

/** A JSON answer with a status and headers. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Epoch seconds `inSec` from now. */
export const epochIn = (inSec: number) => Math.floor(Date.now() / 1000) + inSec;
