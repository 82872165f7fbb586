import { postgresStoreFactory } from './postgresFactory.js';
import { auditContract } from './auditContract.js';

auditContract('PostgreSQL', postgresStoreFactory);
