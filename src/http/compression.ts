import fastifyCompress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/**
 * Below about a kilobyte a response fits in one TCP segment either way, and the encoder's own
 * framing would eat most of what it saves.
 */
const COMPRESS_THRESHOLD_BYTES = 1024;

/**
 * Compresses responses over the threshold (JSON, the dashboard's files, the API reference), with
 * brotli or gzip as the client asks. deflate is left out: clients disagree on whether it is
 * zlib-wrapped. The event stream is never compressed: it is hijacked (routes/system.ts), and an
 * encoder would hold its events back until its buffer filled. Request bodies are not decompressed:
 * a webhook's signature is over the bytes as sent, and a 1 MiB body limit must mean 1 MiB.
 * Register it before any route: it hooks each route as it is added.
 */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCompress, {
    global: true,
    globalDecompression: false,
    threshold: COMPRESS_THRESHOLD_BYTES,
    encodings: ['br', 'gzip'],
  });
}
