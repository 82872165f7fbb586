import { retentionContract } from './retentionContract.js';
import { sqliteStoreFactory } from './factory.js';

retentionContract('SQLite', sqliteStoreFactory);
