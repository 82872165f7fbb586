import { sqliteStoreFactory } from './factory.js';
import { leaseContract } from './leaseContract.js';

leaseContract('SQLite', sqliteStoreFactory);
