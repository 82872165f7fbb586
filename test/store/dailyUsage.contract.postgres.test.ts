import { dailyUsageContract } from './dailyUsageContract.js';
import { postgresStoreFactory } from './postgresFactory.js';

dailyUsageContract('PostgreSQL', postgresStoreFactory);
