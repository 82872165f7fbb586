/**
 * The helper that lets PostgreSQL run statements written with SQLite's parameters: `@name` and `?`
 * become `$n`, and nothing else in the text changes. A unit test: no server needed.
 */
import { describe, expect, it } from 'vitest';
import { toPositional } from '../../src/persistence/postgres/connection.js';

describe('toPositional', () => {
  it('numbers named parameters in order of first use, the same name getting the same number', () => {
    expect(toPositional('UPDATE t SET a = @a, at = @at WHERE id = @id AND a <> @a')).toEqual({
      text: 'UPDATE t SET a = $1, at = $2 WHERE id = $3 AND a <> $1',
      names: ['a', 'at', 'id'],
    });
  });

  it('numbers ? parameters in order, and keeps casts after either kind', () => {
    expect(toPositional('SELECT ?::jsonb, ?')).toEqual({ text: 'SELECT $1::jsonb, $2', names: null });
    expect(toPositional('SELECT @ids::jsonb, @n::integer').text).toBe('SELECT $1::jsonb, $2::integer');
  });

  it("leaves quoted strings, quoted names, comments and operators alone", () => {
    const sql = `SELECT '@not ? a param', "col@x" -- what's @this?
      FROM t WHERE j @> '{}' AND k = @k`;
    expect(toPositional(sql)).toEqual({
      text: `SELECT '@not ? a param', "col@x" -- what's @this?
      FROM t WHERE j @> '{}' AND k = $1`,
      names: ['k'],
    });
  });

  it('refuses a statement that mixes the two kinds, naming it', () => {
    expect(() => toPositional('SELECT @a, ?')).toThrow(/mixes @name and \? parameters: SELECT @a, \?/);
  });
});
