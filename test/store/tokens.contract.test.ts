import { sqliteStoreFactory } from './factory.js';
import { tokenContract } from './tokenContract.js';

tokenContract('SQLite', sqliteStoreFactory);
