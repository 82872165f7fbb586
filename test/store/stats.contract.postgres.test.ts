import { postgresStoreFactory } from './postgresFactory.js';
import { statsContract } from './statsContract.js';

statsContract('PostgreSQL', postgresStoreFactory);
