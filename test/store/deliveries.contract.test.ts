import { deliveryContract } from './deliveryContract.js';
import { sqliteStoreFactory } from './factory.js';

deliveryContract('SQLite', sqliteStoreFactory);
