import { organisationContract } from './organisationContract.js';
import { postgresStoreFactory } from './postgresFactory.js';

organisationContract('PostgreSQL', postgresStoreFactory);
