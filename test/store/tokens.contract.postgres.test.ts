import { postgresStoreFactory } from './postgresFactory.js';
import { tokenContract } from './tokenContract.js';

tokenContract('PostgreSQL', postgresStoreFactory);
