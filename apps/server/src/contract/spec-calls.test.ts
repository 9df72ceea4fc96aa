import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestPortal, type TestPortal } from '../test/helpers.js';

/*
 * Contract 7: every call of the spec's section 7 is reachable at its full path with its method.
 * v2 rows of 7.1 live under /api/v2/auth, the others under /api/auth; 7.2 under
 * /api/administrationbe; 7.3 under /api/delivery/persistence; 7.4 under /api/v2/delivery;
 * 7.5 under /api/delivery; plus the operations the contract's own table names.
 */
const CALLS: Array<[string, string]> = [
  // 7.1
  ['GET', '/api/v2/auth/validate'],
  ['GET', '/api/v2/auth/externalLogin'],
  ['POST', '/api/v2/auth/login'],
  ['POST', '/api/v2/auth/logout'],
  ['POST', '/api/auth/password/forgotPassword'],
  ['GET', '/api/auth/password/isValidToken'],
  ['POST', '/api/auth/password/resetPassword'],
  ['GET', '/api/v2/auth/isValidProtocol'],
  ['POST', '/api/v2/auth/user/bindProtocol'],
  ['POST', '/api/auth/protocol/share'],
  ['GET', '/api/auth/user/get'],
  ['GET', '/api/auth/user/validate'],
  ['POST', '/api/v2/auth/user/create'],
  ['POST', '/api/v2/auth/user/createuser'],
  ['POST', '/api/v2/auth/user/edit'],
  ['GET', '/api/auth/patient/:id/shares'],
  ['POST', '/api/auth/patient/share/:id/revoke'],
  ['POST', '/api/v2/auth/generateMFAToken'],
  ['POST', '/api/v2/auth/activateMFAToken'],
  ['POST', '/api/v2/auth/inactivateMFAToken'],
  ['GET', '/api/v2/auth/isMFAActivated'],
  ['POST', '/api/v2/auth/physician/create'],
  ['POST', '/api/v2/auth/physician/edit'],
  ['GET', '/api/v2/auth/physician/validate'],
  ['GET', '/api/auth/physician/get'],
  ['GET', '/api/auth/externaluser/validate'],
  ['GET', '/api/auth/externaluser/get'],
  ['POST', '/api/v2/auth/externaluser/edit'],
  ['POST', '/api/auth/company/create'],
  ['GET', '/api/auth/company/invite/validate'],
  ['GET', '/api/v2/auth/institution/getById'],
  ['GET', '/api/v2/auth/institution/customLoginPage'],
  ['GET', '/api/v2/auth/institution/:id/setting/:name'],
  ['POST', '/api/v2/auth/user/getEmailFrequencyOfUser'],
  ['GET', '/api/v2/auth/user/registerValidate'],
  ['POST', '/api/v2/auth/user/changePassword'],
  ['POST', '/api/v2/auth/user/changeEmail'],
  // 7.2 and contract 6
  ['GET', '/api/administrationbe/institution/:id'],
  ['POST', '/api/administrationbe/institution'],
  ['PUT', '/api/administrationbe/institution/:id'],
  ['GET', '/api/administrationbe/userlogged/institutionAdmin'],
  ['GET', '/api/administrationbe/listOfPartnerClinics'],
  ['GET', '/api/administrationbe/city/state/:uf'],
  ['GET', '/api/administrationbe/institution/:id/tags'],
  ['POST', '/api/administrationbe/institution/:id/tags'],
  ['GET', '/api/administrationbe/institution/:id/tags/:tagId'],
  ['PUT', '/api/administrationbe/institution/:id/tags/:tagId'],
  ['DELETE', '/api/administrationbe/institution/:id/tags/:tagId'],
  ['GET', '/api/administrationbe/institution/:id/tags/:tagId/users'],
  ['POST', '/api/administrationbe/institution/:id/tags/:tagId/users'],
  ['GET', '/api/administrationbe/institution/:id/tags/:tagId/users/:userId'],
  ['PUT', '/api/administrationbe/institution/:id/tags/:tagId/users/:userId'],
  ['DELETE', '/api/administrationbe/institution/:id/tags/:tagId/users/:userId'],
  ['GET', '/api/administrationbe/institution/:id/containsTags'],
  ['GET', '/api/administrationbe/user'],
  ['POST', '/api/administrationbe/physician/invite'],
  ['POST', '/api/administrationbe/company/invite'],
  ['GET', '/api/administrationbe/trace'],
  // 7.3
  ['GET', '/api/delivery/persistence/protocols/all'],
  ['GET', '/api/delivery/persistence/protocols/physician'],
  ['GET', '/api/delivery/persistence/exams'],
  ['GET', '/api/delivery/persistence/dashboard/protocol/byId'],
  ['GET', '/api/delivery/persistence/dashboard/protocols/patient/byTotal'],
  ['GET', '/api/delivery/persistence/dashboard/protocols/exams'],
  // 7.4
  ['GET', '/api/v2/delivery/protocols/listedByTags'],
  ['GET', '/api/v2/delivery/dashboard/protocols'],
  ['GET', '/api/v2/delivery/protocols/exams'],
  ['GET', '/api/v2/delivery/dashboard/protocols/exams'],
  ['GET', '/api/v2/delivery/resource/image'],
  ['GET', '/api/v2/delivery/resource/report'],
  ['GET', '/api/v2/delivery/resource/signature'],
  ['POST', '/api/v2/delivery/resource/batchPrinting'],
  ['GET', '/api/v2/delivery/institutionUserTags'],
  ['GET', '/api/v2/delivery/term'],
  ['GET', '/api/v2/delivery/term/user'],
  ['POST', '/api/v2/delivery/term/user'],
  ['POST', '/api/v2/delivery/trace/log'],
  ['POST', '/api/v2/delivery/trace/log/all'],
  ['GET', '/api/v2/delivery/interlocution/smart/auth'],
  ['POST', '/api/v2/delivery/interlocution/smart/updatestatus'],
  // 7.5
  ['GET', '/api/delivery/history'],
  ['GET', '/api/delivery/history/attributes'],
  ['GET', '/api/delivery/examtypes/range'],
  // contract 5
  ['PUT', '/api/v2/delivery/ingest/protocols/:number'],
  ['DELETE', '/api/v2/delivery/ingest/protocols/:number'],
  ['POST', '/api/v2/delivery/ingest/protocols/:number/invite'],
  ['PUT', '/api/v2/delivery/ingest/protocols/:number/exams/:examKey/resources/:identifier'],
  ['PUT', '/api/v2/delivery/ingest/protocols/:number/exams/:examKey/resources/:identifier/signed'],
  // contract 1
  ['GET', '/healthz'],
  ['GET', '/readyz'],
];

let portal: TestPortal;
beforeAll(async () => {
  portal = await startTestPortal();
});
afterAll(async () => portal.destroy());

describe('the spec’s calls at their contract paths (contract 7)', () => {
  test.each(CALLS)('%s %s', (method, url) => {
    expect(portal.app.hasRoute({ method: method as 'GET', url })).toBe(true);
  });
});
