import { postgresStoreFactory } from './postgresFactory.js';
import { paginationContract } from './paginationContract.js';

paginationContract('PostgreSQL', postgresStoreFactory);
