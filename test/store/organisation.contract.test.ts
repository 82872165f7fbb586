import { sqliteStoreFactory } from './factory.js';
import { organisationContract } from './organisationContract.js';

organisationContract('SQLite', sqliteStoreFactory);
