/** OFFICE_DATABASE_URL chooses the backend: a PostgreSQL URL selects PostgreSQL, anything else is refused by name. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('OFFICE_DATABASE_URL', () => {
  it('is unset by default: the store is SQLite at OFFICE_DB', () => {
    expect(loadConfig({}).databaseUrl).toBeUndefined();
    expect(loadConfig({ OFFICE_DATABASE_URL: '' }).databaseUrl).toBeUndefined();
  });

  it('takes postgres:// and postgresql:// URLs', () => {
    expect(loadConfig({ OFFICE_DATABASE_URL: 'postgres://u:p@db:5432/office' }).databaseUrl).toBe('postgres://u:p@db:5432/office');
    expect(loadConfig({ OFFICE_DATABASE_URL: 'postgresql://db/office' }).databaseUrl).toBe('postgresql://db/office');
  });

  it('refuses any other URL, naming the variable and what it expects', () => {
    expect(() => loadConfig({ OFFICE_DATABASE_URL: 'mysql://db/office' })).toThrow(ConfigError);
    expect(() => loadConfig({ OFFICE_DATABASE_URL: 'mysql://db/office' })).toThrow(/OFFICE_DATABASE_URL="mysql:\/\/db\/office".*PostgreSQL URL/);
  });
});
