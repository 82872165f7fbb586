import { retentionContract } from './retentionContract.js';
import { postgresStoreFactory } from './postgresFactory.js';

retentionContract('PostgreSQL', postgresStoreFactory);
