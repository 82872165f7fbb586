/** JSON text from outside: parsed with a cheap guard against abuse, before it becomes objects. */

export const MAX_JSON_DEPTH = 64;

export class JsonTextError extends Error {
  override name = 'JsonTextError';
}

/** Parses JSON text; deeply nested text is refused before it is parsed. Throws a JsonTextError saying why. */
export function parseJsonText(text: string): unknown {
  assertJsonDepth(text);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new JsonTextError(`invalid JSON body: ${(error as Error).message}`);
  }
}

/** Throws a JsonTextError when the text nests deeper than MAX_JSON_DEPTH; it reads characters only, it parses nothing. */
export function assertJsonDepth(text: string): void {
  if (nestingDepth(text) > MAX_JSON_DEPTH) throw new JsonTextError(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
}

/**
 * Why a JSON parser that refuses prototype poisoning refused the text: its syntax error, or, when
 * the text is well-formed JSON, the `__proto__` or `constructor.prototype` key it carries.
 */
export function jsonRefusalReason(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return `invalid JSON body: ${(error as Error).message}`;
  }
  return 'the JSON body has a "__proto__" key or a "constructor" with a "prototype" key, which are refused (prototype poisoning)';
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
