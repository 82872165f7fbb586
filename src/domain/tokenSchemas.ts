/** Request and response schemas of the token routes (API.md, "Governance"). */
import { z } from 'zod';

export const CreateTokenBody = z.strictObject({
  name: z.string().trim().min(1).max(200).describe('Who or what holds the token, e.g. "ci" or "alice".'),
  role: z.enum(['admin', 'member']).describe('An admin may do everything; a member manages only the routines it owns.'),
});

const Timestamp = z.iso.datetime().describe('ISO-8601 UTC');

const tokenFields = {
  id: z.string().describe('What a routine\'s owner_id records for the routines this token creates.'),
  name: z.string(),
  role: z.enum(['admin', 'member']),
  created_at: Timestamp,
};

export const ApiTokenSchema = z.object({ ...tokenFields, revoked_at: Timestamp.nullable() }).meta({ id: 'ApiToken' });

export const CreatedApiTokenSchema = z.object({
  ...tokenFields,
  token: z.string().describe('The secret, for Authorization: Bearer. Shown only in this response: only its hash is stored.'),
}).meta({ id: 'CreatedApiToken' });
