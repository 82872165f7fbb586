/** A JSON column's value; an empty or NULL column is the fallback. Both backends store JSON as text. */
export function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === '') return fallback;
  return JSON.parse(text) as T;
}
