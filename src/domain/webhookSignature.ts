import { createHmac, timingSafeEqual } from 'node:crypto';

export type SigningMode = 'none' | 'bearer' | 'hmac_sha256';

export interface SignedRequest {
  authorization: string | undefined;
  signature256: string | undefined;
  /** The body's bytes exactly as received: senders sign bytes, not decoded text. */
  rawBody: Buffer;
}

/**
 * Verifies a webhook delivery against its trigger's secret, in constant time. A bearer or HMAC
 * trigger with no secret accepts nothing: an empty secret must never mean "anyone".
 */
export function verifyWebhook(mode: SigningMode, secret: string | null, request: SignedRequest): boolean {
  if (mode === 'none') return true;
  if (!secret) return false;
  if (mode === 'bearer') {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.authorization ?? '');
    return match !== null && safeEqual(match[1]!, secret);
  }
  const match = /^sha256=([0-9a-f]{64})$/i.exec(request.signature256?.trim() ?? '');
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(request.rawBody).digest('hex');
  return safeEqual(match[1]!.toLowerCase(), expected);
}

/** Constant-time string comparison, for every secret the scheduler checks. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
