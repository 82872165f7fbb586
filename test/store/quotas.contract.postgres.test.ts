import { postgresStoreFactory } from './postgresFactory.js';
import { quotaContract } from './quotaContract.js';

quotaContract('PostgreSQL', postgresStoreFactory);
