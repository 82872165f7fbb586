import { sqliteStoreFactory } from './factory.js';
import { paginationContract } from './paginationContract.js';

paginationContract('SQLite', sqliteStoreFactory);
