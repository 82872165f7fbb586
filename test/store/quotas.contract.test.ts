import { sqliteStoreFactory } from './factory.js';
import { quotaContract } from './quotaContract.js';

quotaContract('SQLite', sqliteStoreFactory);
