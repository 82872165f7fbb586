/**
 * What a verified webhook body means, by its content type (API.md, "Webhooks"): a JSON body's
 * top-level fields are the variables; a form-encoded body with a `payload` field (GitHub's default)
 * is that field parsed as JSON; any other body is the variable `body`, as text.
 */
import { JsonTextError, parseJsonText } from './jsonText.js';

export class WebhookBodyError extends Error {
  override name = 'WebhookBodyError';
}

/** The media type alone, lower-cased: `Application/JSON; charset=utf-8` is `application/json`. */
function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

function isJsonType(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

/** Decodes the raw body (already verified) into the routine's variables; throws a WebhookBodyError when it cannot. */
export function webhookVariables(contentType: string | undefined, raw: Buffer): Record<string, unknown> {
  if (raw.length === 0) return {};
  const mediaType = mediaTypeOf(contentType);
  // Bytes that are not UTF-8 were signed as bytes; as text they become U+FFFD, never a rejection.
  const text = raw.toString('utf8');
  if (isJsonType(mediaType)) {
    if (text.trim() === '') return {};
    return jsonObject(text, 'the JSON body');
  }
  if (mediaType === 'application/x-www-form-urlencoded') {
    const payload = new URLSearchParams(text).get('payload');
    if (payload !== null) return jsonObject(payload, "the form's `payload` field");
  }
  return { body: text };
}

function jsonObject(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (error) {
    if (error instanceof JsonTextError) throw new WebhookBodyError(`${what}: ${error.message}`);
    throw error;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new WebhookBodyError(`${what} must be a JSON object, whose top-level fields become variables; got ${Array.isArray(value) ? 'an array' : JSON.stringify(value)?.slice(0, 40)}`);
  }
  return value as Record<string, unknown>;
}
