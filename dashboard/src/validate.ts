/**
 * A form's body checked with the API's own zod schema before it is sent: a mistake shows under its
 * field at once, with the server's wording, and no request is made (so the browser logs no 400).
 */
import type { z } from 'zod';
import { ApiError } from './api';

export function validated<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
  throw new ApiError(400, 'validation_error', details.map((d) => `${d.path}: ${d.message}`).join('; '), details);
}
