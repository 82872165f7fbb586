import { storeContract } from './contract.js';
import { leaseContract } from './leaseContract.js';
import { postgresStoreFactory } from './postgresFactory.js';

storeContract('PostgreSQL', postgresStoreFactory);
leaseContract('PostgreSQL', postgresStoreFactory);
