import type { Endpoint, PayloadRequest } from 'payload'
import { z } from 'zod'

import { type CodeHostProvider, resendRepoInvitation } from '../src/delivery/repo-access'
import { endpoint } from '../src/http/endpoint'
import { pathRowId } from '../src/http/paths'
import { ServiceError } from '../src/http/errors'
import { revokeApiKeyByStaff } from '../src/staff/api-keys'
import { staffReasonBody } from '../src/staff/audit'
import { overrideLicense, resendLicenseEmail } from '../src/staff/licenses'
import { removeActivationWithAudit, revokeSeatByStaff } from '../src/staff/teams'

const SIGN_IN = 'Sign in as staff first.'
const STAFF_ONLY = 'Only staff (admin or support) take support actions.'

/** The path's id: anything but a row id names no row (404 with the action's code). */
const idParam = z.object({ id: z.string().max(64) })

const licenseNotFound = () => new ServiceError(404, 'license_not_found', 'There is no license with this id.')

/** A support action: POST {reason} by staff on `/staff/<what>/:id/<action>`. */
const staffAction = <Result extends object>(
  path: string,
  run: (args: { req: PayloadRequest; id: string; reason: string }) => Promise<Result>,
): Endpoint =>
  endpoint({
    path: `/staff${path}`,
    method: 'post',
    auth: SIGN_IN,
    staff: STAFF_ONLY,
    params: idParam,
    body: staffReasonBody,
    handler: ({ req, params, body }) => run({ req, id: params.id, reason: body.reason }),
  })

/** POST /api/staff/licenses/:id/revoke {reason}: 200 {license: {id, status, override}, auditLogId}. */
const staffRevokeLicenseEndpoint = staffAction('/licenses/:id/revoke', ({ req, id, reason }) =>
  overrideLicense(req, pathRowId(id, licenseNotFound), 'revoked', reason),
)

/** POST /api/staff/licenses/:id/restore {reason}: 200 {license: {id, status, override}, auditLogId}. */
const staffRestoreLicenseEndpoint = staffAction('/licenses/:id/restore', ({ req, id, reason }) =>
  overrideLicense(req, pathRowId(id, licenseNotFound), 'active', reason),
)

/** POST /api/staff/licenses/:id/resend-email {reason}: 200 {license: {id}, to, auditLogId}; the job sends it. */
const staffResendLicenseEmailEndpoint = staffAction('/licenses/:id/resend-email', ({ req, id, reason }) =>
  resendLicenseEmail(req, pathRowId(id, licenseNotFound), reason),
)

/** POST /api/staff/repo-access/:id/resend-invitation {reason}: 200 {repoAccess: {id, status, username}, auditLogId}. */
const staffResendRepoInvitationEndpoint = (codeHost: CodeHostProvider): Endpoint =>
  staffAction('/repo-access/:id/resend-invitation', ({ req, id, reason }) =>
    resendRepoInvitation(
      req,
      codeHost,
      pathRowId(
        id,
        () => new ServiceError(404, 'repo_access_not_found', 'There is no repository access request with this id.'),
      ),
      reason,
    ),
  )

/** POST /api/staff/api-keys/:id/revoke {reason}: 200 {apiKey: {id, prefix, revokedAt}, auditLogId}. */
const staffRevokeApiKeyEndpoint = staffAction('/api-keys/:id/revoke', ({ req, id, reason }) =>
  revokeApiKeyByStaff(
    req,
    pathRowId(id, () => new ServiceError(404, 'api_key_not_found', 'There is no API key with this id.')),
    reason,
  ),
)

/** POST /api/staff/license-seats/:id/revoke {reason}: 200 {seat: {id, status, license}, auditLogId}. */
const staffRevokeSeatEndpoint = staffAction('/license-seats/:id/revoke', ({ req, id, reason }) =>
  revokeSeatByStaff(
    req,
    pathRowId(id, () => new ServiceError(404, 'seat_not_found', 'There is no seat with this id.')),
    reason,
  ),
)

/** POST /api/staff/license-activations/:id/remove {reason}: 200 {activation: {id, license, removed}, auditLogId}. */
const staffRemoveActivationEndpoint = staffAction('/license-activations/:id/remove', ({ req, id, reason }) =>
  removeActivationWithAudit(
    req,
    pathRowId(id, () => new ServiceError(404, 'activation_not_found', 'There is no activation with this id.')),
    reason,
  ),
)

/** Every support action endpoint. */
export const staffEndpoints = (codeHost: CodeHostProvider): Endpoint[] => [
  staffRevokeLicenseEndpoint,
  staffRestoreLicenseEndpoint,
  staffResendLicenseEmailEndpoint,
  staffResendRepoInvitationEndpoint(codeHost),
  staffRevokeApiKeyEndpoint,
  staffRevokeSeatEndpoint,
  staffRemoveActivationEndpoint,
]
