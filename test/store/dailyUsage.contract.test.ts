import { dailyUsageContract } from './dailyUsageContract.js';
import { sqliteStoreFactory } from './factory.js';

dailyUsageContract('SQLite', sqliteStoreFactory);
