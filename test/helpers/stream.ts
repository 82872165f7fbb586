/**
 * Reads an event stream (`url` is the whole stream URL) until `until` matches what has arrived, or
 * 10 s pass, then disconnects. A refused request answers at once with its status and body.
 */
export async function readStream(url: string, until: RegExp, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  if (response.status !== 200) return { status: response.status, contentType: response.headers.get('content-type'), text: await response.text() };
  const reader = response.body!.getReader();
  let text = '';
  const deadline = Date.now() + 10_000;
  try {
    while (!until.test(text) && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
  } finally {
    controller.abort();
  }
  return { status: response.status, contentType: response.headers.get('content-type'), text };
}
