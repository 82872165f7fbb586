import { storeContract } from './contract.js';
import { sqliteStoreFactory } from './factory.js';

storeContract('SQLite', sqliteStoreFactory);
