import { storeContract } from './contract.js';
import { leaseContract } from './leaseContract.js';
import { postgresStoreFactory } from './postgresFactory.js';
import { sessionContract } from './sessionContract.js';

storeContract('PostgreSQL', postgresStoreFactory);
leaseContract('PostgreSQL', postgresStoreFactory);
sessionContract('PostgreSQL', postgresStoreFactory);
