import { sqliteStoreFactory } from './factory.js';
import { sessionContract } from './sessionContract.js';

sessionContract('SQLite', sqliteStoreFactory);
