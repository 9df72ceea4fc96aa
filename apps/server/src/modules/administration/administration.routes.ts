import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  zAccountDisable,
  zAccountPage,
  zAccountQuery,
  zAdminInvite,
  zAdminProtocolDetail,
  zAdminProtocolPage,
  zAuditPage,
  zAuditQuery,
  zDashboard,
  zInstitutionListItem,
  zIngestCallPage,
  zIngestCallQuery,
  zInstitutionListQuery,
  zInvitationPage,
  zInvitationQuery,
  zOutboxPage,
  zOutboxQuery,
  zProtocolSearchQuery,
  zProtocolStatusChange,
} from '@portal/shared/schemas/administration';
import { zInvitationSent } from '@portal/shared/schemas/accounts';
import { envelope } from '@portal/shared/schemas/common';
import type { AppContext } from '../../context.js';
import { authenticate, requireRole } from '../../plugins/auth.js';
import {
  accountList,
  auditCsv,
  auditList,
  changeAccountDisabled,
  changeProtocolStatus,
  dashboard,
  endAccountSessions,
  ingestCallList,
  institutionList,
  operatorOf,
  outboxList,
  protocolSearch,
  resendOutbox,
  unlockAccount,
  viewProtocol,
} from './administration.service.js';
import { invitationList, inviteAdmin, resendInvitation, revokeInvitation } from './invitations.service.js';

const BASE = '/api/administrationbe';
const zIdParams = z.object({ id: z.string().min(1).max(64) });
const tags = ['administration console'];
const security = [{ bearer: [] }];
const doc = (summary: string, description?: string) => ({
  summary,
  tags,
  security,
  ...(description ? { description } : {}),
});

/**
 * The administration console's calls (contract 9): admins reach every institution, company users
 * only their own (anything else answers 404, as if it did not exist); every change is traced with
 * who made it.
 */
export default function administrationRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const signIn = authenticate(ctx);
    // Who may call comes before validation: other roles learn nothing about the payload rules.
    app.addHook('onRequest', async (request) => {
      await signIn(request);
      requireRole(request, 'ADMIN', 'COMPANY');
    });
    const operator = (request: Parameters<typeof requireRole>[0]) =>
      operatorOf(requireRole(request, 'ADMIN', 'COMPANY'));

    app.get(
      `${BASE}/institution`,
      {
        schema: {
          ...doc('List institutions', 'Admins: every institution, filtered by name or code; company users: their own.'),
          querystring: zInstitutionListQuery,
          response: { 200: envelope(z.array(zInstitutionListItem)) },
        },
      },
      async (request) => ({ data: await institutionList(ctx, operator(request), request.query.search) }),
    );

    app.get(
      `${BASE}/dashboard`,
      {
        schema: {
          ...doc(
            'Dashboard figures',
            'Per institution: protocols and exams delivered today and this week, exams opened, last ingest, ' +
              'ingest calls and their errors, sign-in failures of 24 h, mails waiting and given up in the outbox and accounts locked now. ' +
              'Portal-wide figures (messages and accounts of no institution included) for admins only.',
          ),
          response: { 200: envelope(zDashboard) },
        },
      },
      async (request) => ({ data: await dashboard(ctx, operator(request)) }),
    );

    app.get(
      `${BASE}/ingest-calls`,
      {
        schema: {
          ...doc(
            'Calls to the ingest doors',
            'The calls of the institutions’ systems (JSON ingest, FHIR, HL7 v2) with their answer, newest first; ' +
              '`errors=true` keeps the failed ones. Kept 30 days. Company users: their institution’s only.',
          ),
          querystring: zIngestCallQuery,
          response: { 200: envelope(zIngestCallPage) },
        },
      },
      async (request) => ({ data: await ingestCallList(ctx, operator(request), request.query) }),
    );

    app.get(
      `${BASE}/protocols`,
      {
        schema: {
          ...doc('Find protocols', 'By number (prefix), patient name, institution and day range, newest first.'),
          querystring: zProtocolSearchQuery,
          response: { 200: envelope(zAdminProtocolPage) },
        },
      },
      async (request) => ({ data: await protocolSearch(ctx, operator(request), request.query) }),
    );

    app.get(
      `${BASE}/protocols/:id`,
      {
        schema: {
          ...doc('A protocol with its exams, files, reads and shares'),
          params: zIdParams,
          response: { 200: envelope(zAdminProtocolDetail) },
        },
      },
      async (request) => ({ data: await viewProtocol(ctx, request, operator(request), request.params.id) }),
    );

    app.put(
      `${BASE}/protocols/:id/status`,
      {
        schema: {
          ...doc(
            'Disable (cancel) or re-enable a protocol',
            'A disabled protocol opens for nobody and leaves every list; the reason is kept in the audit trail (PROTOCOL_DISABLED, PROTOCOL_ENABLED).',
          ),
          params: zIdParams,
          body: zProtocolStatusChange,
          response: { 200: envelope(zAdminProtocolDetail) },
        },
      },
      async (request) => ({
        data: await changeProtocolStatus(ctx, request, operator(request), request.params.id, request.body),
      }),
    );

    app.get(
      `${BASE}/audit`,
      {
        schema: {
          ...doc(
            'Audit trail',
            'Filtered by protocol (number or id), patient, user, event, institution and day range; newest first. Company users read their institution’s events only.',
          ),
          querystring: zAuditQuery,
          response: { 200: envelope(zAuditPage) },
        },
      },
      async (request) => ({ data: await auditList(ctx, operator(request), request.query) }),
    );

    app.get(
      `${BASE}/audit/export.csv`,
      {
        schema: {
          ...doc(
            'Audit trail as CSV',
            'The same filters as the audit trail, every matching row (page and size are ignored), streamed as UTF-8 CSV. The export is itself traced (AUDIT_EXPORTED).',
          ),
          querystring: zAuditQuery,
        },
      },
      async (request, reply) => {
        const stream = await auditCsv(ctx, request, operator(request), request.query);
        const day = ctx.clock.now().toISOString().slice(0, 10);
        return reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="audit-${day}.csv"`)
          .send(stream);
      },
    );

    app.get(
      `${BASE}/outbox`,
      {
        schema: {
          ...doc(
            'Outbox',
            'Mails and messages waiting, sent and given up (DEAD), with their last error and the institution they were ' +
              'sent for; `institutionId` keeps one institution. Company users see their institution’s only ' +
              '(another institution: 404).',
          ),
          querystring: zOutboxQuery,
          response: { 200: envelope(zOutboxPage) },
        },
      },
      async (request) => ({ data: await outboxList(ctx, operator(request), request.query) }),
    );

    app.post(
      `${BASE}/outbox/:id/resend`,
      {
        schema: {
          ...doc(
            'Send a message again',
            'Queues it for the next round of the sender (OUTBOX_RESENT). Company users: their institution’s messages ' +
              'only (any other: 404).',
          ),
          params: zIdParams,
          response: { 200: envelope(z.boolean()) },
        },
      },
      async (request) => {
        await resendOutbox(ctx, request, operator(request), request.params.id);
        return { data: true };
      },
    );

    app.get(
      `${BASE}/accounts`,
      {
        schema: {
          ...doc(
            'Find people',
            'By name, e-mail, CPF or CRM, by `type`, and by `state`: `ACTIVE`, `NOT_ACTIVATED`, `DISABLED`, or `LOCKED` (a sign-in or MFA lock running now, as counted by the dashboard’s `lockedNow`); with state and sign-in lock; `institutionId` keeps one institution’s people (as its company users see them: a dashboard’s `lockedNow` per institution). Company users: their institution’s company users and physicians (another institution: 404).',
          ),
          querystring: zAccountQuery,
          response: { 200: envelope(zAccountPage) },
        },
      },
      async (request) => ({ data: await accountList(ctx, operator(request), request.query) }),
    );

    app.put(
      `${BASE}/accounts/:id/disabled`,
      {
        schema: {
          ...doc(
            'Disable or re-enable an account',
            'Disabling also ends its sessions (ACCOUNT_DISABLED, ACCOUNT_ENABLED).',
          ),
          params: zIdParams,
          body: zAccountDisable,
          response: { 200: envelope(z.boolean()) },
        },
      },
      async (request) => {
        await changeAccountDisabled(ctx, request, operator(request), request.params.id, request.body.disabled);
        return { data: true };
      },
    );

    app.post(
      `${BASE}/accounts/:id/unlock`,
      {
        schema: {
          ...doc(
            'Unlock an account’s sign-in',
            'Clears the failed sign-in count of its e-mail and CPF (ACCOUNT_UNLOCKED).',
          ),
          params: zIdParams,
          response: { 200: envelope(z.boolean()) },
        },
      },
      async (request) => {
        await unlockAccount(ctx, request, operator(request), request.params.id);
        return { data: true };
      },
    );

    app.post(
      `${BASE}/accounts/:id/sessions/end`,
      {
        schema: {
          ...doc('End every session of an account', 'ACCOUNT_SESSIONS_ENDED.'),
          params: zIdParams,
          response: { 200: envelope(z.boolean()) },
        },
      },
      async (request) => {
        await endAccountSessions(ctx, request, operator(request), request.params.id);
        return { data: true };
      },
    );

    app.post(
      `${BASE}/admin/invite`,
      {
        schema: {
          ...doc(
            'Invite an administrator',
            'Admins only (company users: 403). Mails a link (7 days, single use) to the console’s first-password ' +
              'page; 409 when the address already has an account (ADMIN_INVITED).',
          ),
          body: zAdminInvite,
          response: { 201: envelope(zInvitationSent) },
        },
      },
      async (request, reply) =>
        reply.status(201).send({ data: await inviteAdmin(ctx, request, operator(request), request.body) }),
    );

    app.get(
      `${BASE}/invitations`,
      {
        schema: {
          ...doc(
            'Invitations not taken up',
            'Physician, company-user and admin invitations that are pending, expired or revoked, newest first. ' +
              'Company users: their institution’s physicians and company users only.',
          ),
          querystring: zInvitationQuery,
          response: { 200: envelope(zInvitationPage) },
        },
      },
      async (request) => ({ data: await invitationList(ctx, operator(request), request.query) }),
    );

    app.post(
      `${BASE}/invitations/:id/resend`,
      {
        schema: {
          ...doc(
            'Send an invitation again',
            'A new link valid 7 days is mailed and the previous one stops working; 409 once the address has an ' +
              'account; another institution’s invitation: 404 (INVITATION_RESENT).',
          ),
          params: zIdParams,
          response: { 201: envelope(zInvitationSent) },
        },
      },
      async (request, reply) =>
        reply.status(201).send({ data: await resendInvitation(ctx, request, operator(request), request.params.id) }),
    );

    app.delete(
      `${BASE}/invitations/:id`,
      {
        schema: {
          ...doc(
            'Revoke an invitation',
            'Its link answers “Token not found” from then on; revoking a revoked one changes nothing; an ' +
              'invitation already used or of another institution: 404 (INVITATION_REVOKED).',
          ),
          params: zIdParams,
          response: { 200: envelope(z.boolean()) },
        },
      },
      async (request) => {
        await revokeInvitation(ctx, request, operator(request), request.params.id);
        return { data: true };
      },
    );
  };
}
