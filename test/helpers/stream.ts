/** What a stream answered, and the text read from it until it was left. */
export interface StreamRead {
  status: number;
  contentType: string | null;
  /** Set when the stream came compressed (it never should: an encoder holds events back). */
  contentEncoding: string | null;
  text: string;
}

/** An event stream that has sent its `hello`: every change from here on reaches it. */
export interface OpenStream extends StreamRead {
  /** Reads on until `until` matches what has arrived, or 10 s pass, then disconnects. */
  readUntil(until: RegExp): Promise<StreamRead>;
}

/** The server subscribes a stream to the live feed as it writes `hello`, so what follows it is sent. */
const HELLO = /event: hello\ndata: [^\n]*\n\n/;

/**
 * Connects to an event stream (`url` is the whole stream URL) and resolves once its `hello` has
 * arrived. A refused request answers at once with its status and body.
 */
export async function openStream(url: string, headers: Record<string, string> = {}): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const contentType = response.headers.get('content-type');
  const contentEncoding = response.headers.get('content-encoding');
  if (response.status !== 200) {
    const answer = { status: response.status, contentType, contentEncoding, text: await response.text() };
    return { ...answer, readUntil: async () => answer };
  }
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const read = async (until: RegExp) => {
    const deadline = Date.now() + 10_000;
    while (!until.test(text) && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  };
  try {
    await read(HELLO);
  } catch (error) {
    controller.abort();
    throw error;
  }
  return {
    status: response.status,
    contentType,
    contentEncoding,
    text,
    async readUntil(until) {
      try {
        await read(until);
      } finally {
        controller.abort();
      }
      return { status: response.status, contentType, contentEncoding, text };
    },
  };
}

/**
 * Reads an event stream (`url` is the whole stream URL) until `until` matches what has arrived, or
 * 10 s pass, then disconnects. A refused request answers at once with its status and body.
 */
export async function readStream(url: string, until: RegExp, headers: Record<string, string> = {}): Promise<StreamRead> {
  return (await openStream(url, headers)).readUntil(until);
}
