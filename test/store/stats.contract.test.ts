import { sqliteStoreFactory } from './factory.js';
import { statsContract } from './statsContract.js';

statsContract('SQLite', sqliteStoreFactory);
