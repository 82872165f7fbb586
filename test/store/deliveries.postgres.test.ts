import { deliveryContract } from './deliveryContract.js';
import { postgresStoreFactory } from './postgresFactory.js';

deliveryContract('PostgreSQL', postgresStoreFactory);
