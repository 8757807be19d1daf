import crypto from 'node:crypto'

import type { PayloadRequest } from 'payload'

import { template_downloads, templates } from '../db/schema.generated'
import { bare, execute, foreignKeyViolation, sql } from '../db/transaction'
import { requireAccount } from '../http/account'
import { ServiceError } from '../http/errors'
import { truncatedAddress } from '../http/ip-address'
import { requestEntitlements, requireFeature } from '../licensing/entitlements'
import type { Template } from '../payload-types'
import type { FeatureKey } from '../plans/features'
import { signDownload, verifyDownload } from './signing'
import type { ReleaseStorage } from './storage'

/** The feature key that opens the template library's downloads. */
const TEMPLATES_FEATURE: FeatureKey = 'templates'

/** Where template archives live in the S3 bucket (releases are under `releases/`). */
export const TEMPLATES_S3_PREFIX = 'templates'

export type TemplateDownloadSettings = { storage: ReleaseStorage; ttlSeconds: number }

export type TemplateLink = { url: string; expiresAt: string }

/**
 * Template links are signed with their own key (derived from the secret for this purpose only), so a
 * release link's signature never opens the template of the same id, nor the other way round.
 */
const linkSecret = (secret: string) =>
  crypto.createHmac('sha256', secret).update('template-download-links').digest('base64url')

export const signTemplateLink = (secret: string, templateId: number, userId: number, expires: number): string =>
  signDownload(linkSecret(secret), templateId, userId, expires)

export const verifyTemplateLink = (
  secret: string,
  link: { templateId: number; userId: number; expires: number; signature: string },
) =>
  verifyDownload(linkSecret(secret), {
    releaseId: link.templateId,
    userId: link.userId,
    expires: link.expires,
    signature: link.signature,
  })

/** Local disk: a link to /api/templates/:id/file, signed with an HMAC (user, expiry). */
export const localTemplateStorage = (settings: { serverUrl: string; secret: string }): ReleaseStorage => ({
  kind: 'local',
  linkFor: (template, userId, expires) => {
    const signature = signTemplateLink(settings.secret, template.id, userId, expires)
    const query = new URLSearchParams({ user: String(userId), expires: String(expires), signature })
    return Promise.resolve(`${settings.serverUrl}/api/templates/${template.id}/file?${query.toString()}`)
  },
})

export const isPublishedTemplate = (template: Pick<Template, 'publishedAt'>, now = new Date()) =>
  Boolean(template.publishedAt && new Date(template.publishedAt).getTime() <= now.getTime())

/**
 * A signed, short-lived link to a published template's archive for a user whose plans grant
 * `templates`. Each link handed out is one `template_downloads` row and one more on the count.
 * Unknown and unpublished templates answer alike (404), after the feature check.
 */
export const requestTemplateDownload = async (
  req: PayloadRequest,
  settings: TemplateDownloadSettings,
  templateId: number,
  client: { address: string | null; userAgent: string | null },
): Promise<TemplateLink> => {
  const user = requireAccount(req, 'Sign in to download templates.')
  await requireFeature(req.payload, user.id, TEMPLATES_FEATURE, req)
  const now = new Date()
  const template = await req.payload.findByID({
    collection: 'templates',
    id: templateId,
    depth: 0,
    req,
    overrideAccess: true,
    disableErrors: true,
  })
  if (!template || !template.filename || !isPublishedTemplate(template, now)) {
    throw new ServiceError(404, 'template_not_found', 'There is no such template.')
  }
  // The same request's entitlements again: answered from the request's cache, not the database.
  const license = (await requestEntitlements(req)).licenses.find((candidate) =>
    candidate.plan.featureAccess?.includes(TEMPLATES_FEATURE),
  )
  const nowSeconds = Math.floor(now.getTime() / 1000)
  const expires = nowSeconds + settings.ttlSeconds
  const url = await settings.storage.linkFor(template, user.id, expires, nowSeconds)
  // The history row and the count in one statement (atomic, one round trip); the row's foreign keys
  // refuse a template or license deleted since they were read, before anything is counted.
  try {
    await execute(
      req,
      sql`WITH recorded AS (
            INSERT INTO ${template_downloads}
              (${bare(template_downloads.user, template_downloads.template, template_downloads.license, template_downloads.clientAddress, template_downloads.userAgent)})
            VALUES (${user.id}, ${template.id}, ${license?.id ?? null}, ${truncatedAddress(client.address)}, ${client.userAgent?.slice(0, 256) ?? null})
            RETURNING ${template_downloads.template}
          )
          UPDATE ${templates} SET ${bare(templates.downloadCount)} = COALESCE(${templates.downloadCount}, 0) + 1
          WHERE ${templates.id} = (SELECT ${bare(template_downloads.template)} FROM recorded)`,
    )
  } catch (error) {
    const constraint = foreignKeyViolation(error)
    if (constraint === null) throw error
    throw constraint.includes('template_id')
      ? new ServiceError(404, 'template_not_found', 'There is no such template.')
      : new ServiceError(403, 'feature_required', `Your plan does not include "${TEMPLATES_FEATURE}".`)
  }
  return { url, expiresAt: new Date(expires * 1000).toISOString() }
}
