import { sqliteStoreFactory } from './factory.js';
import { auditContract } from './auditContract.js';

auditContract('SQLite', sqliteStoreFactory);
