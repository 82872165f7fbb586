/** JSON text from outside: parsed with a cheap guard against abuse, before it becomes objects. */

export const MAX_JSON_DEPTH = 64;

export class JsonTextError extends Error {
  override name = 'JsonTextError';
}

/** Parses JSON text; deeply nested text is refused before it is parsed. Throws a JsonTextError saying why. */
export function parseJsonText(text: string): unknown {
  if (nestingDepth(text) > MAX_JSON_DEPTH) throw new JsonTextError(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new JsonTextError(`invalid JSON body: ${(error as Error).message}`);
  }
}

function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') deepest = Math.max(deepest, ++depth);
    else if (ch === '}' || ch === ']') depth--;
  }
  return deepest;
}
