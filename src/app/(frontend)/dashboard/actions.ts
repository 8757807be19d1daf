'use server'

import { revalidatePath } from 'next/cache'
import { headers } from 'next/headers'
import { redirect } from 'next/navigation'
import { createLocalReq, type PayloadRequest, type RequiredDataFromCollectionSlug, ValidationError } from 'payload'
import { z } from 'zod'

import { createApiKey, revokeApiKey } from '../../../auth/api-keys'
import { enforceRateLimit } from '../../../auth/rate-limit'
import { startRenewal, startUpgrade } from '../../../billing/license-upgrades'
import { billingRuntimeOf } from '../../../billing/runtime'
import { requestDownload } from '../../../delivery/download'
import { requestRepoAccess } from '../../../delivery/repo-access'
import { requestTemplateDownload } from '../../../delivery/templates'
import { clientAddress } from '../../../http/client-address'
import { ServiceError } from '../../../http/errors'
import { requireFeature } from '../../../licensing/entitlements'
import { licenseNotYours } from '../../../licensing/status'
import { SUPPORT_FEATURE } from '../../../support/feature'
import { deactivateAsOwner } from '../../../teams/activations'
import { assignSeat, revokeSeat } from '../../../teams/seats'
import { field } from '../../_lib/forms'
import { currentUser, getPayloadClient } from '../../_lib/session'
import { INVALID_EMAIL } from './words'
import { PRODUCT_NAME } from '../../../config/product'
import { optionalRuntimeOf, runtimeOf } from '../../../config/runtime'
import { disconnectDiscord } from '../../../community/link'
import '../../../community/runtime'
import { cancelAccountDeletion, requestAccountDeletion } from '../../../privacy/deletion'
import '../../../privacy/runtime'

/**
 * The dashboard's forms: the kit's download, a license's upgrade and renewal, repository access,
 * templates, support requests, API keys, a license's team seats and installations. Each calls the domain function its endpoint calls, as the signed-in user, so the same feature
 * checks, limits and error codes hold; a failure comes back as `?<section>_error=<code>` (or in the
 * form's state), a stable code the page says in words (src/http/error-sentences.ts).
 */

const signedIn = async () => {
  const user = await currentUser()
  if (!user) redirect('/sign-in?next=/dashboard')
  const payload = await getPayloadClient()
  const req = await createLocalReq({ user: { ...user, collection: 'users' } }, payload)
  return { user, payload, req }
}

/** A refusal's code; anything unexpected is logged here (the page only says "try again"). */
const codeOf = (req: PayloadRequest, error: unknown): string => {
  if (error instanceof ServiceError) return error.code
  if (error instanceof ValidationError) return 'validation_error'
  req.payload.logger.error({ err: error }, 'dashboard action failed')
  return 'unavailable'
}

const failed = (req: PayloadRequest, error: unknown, param: string, anchor: string): never =>
  redirect(`/dashboard?${param}=${encodeURIComponent(codeOf(req, error))}#${anchor}`)

/** Form ids are digits; anything else is the same "no such row" the endpoint answers. */
const idOf = (form: FormData, name: string): number | null => {
  const value = form.get(name)
  return typeof value === 'string' && /^\d{1,15}$/.test(value) ? Number(value) : null
}

const deliveryOf = (req: PayloadRequest) => runtimeOf(req.payload, 'delivery')

/** The Download button (works without JS): a fresh signed link to the newest or the chosen release, then straight to it. */
export async function downloadKit(form: FormData) {
  const { req } = await signedIn()
  const version = form.get('version')
  const requestHeaders = await headers()
  let url: string
  try {
    ;({ url } = await requestDownload(
      req,
      deliveryOf(req).downloads,
      typeof version === 'string' && version ? [version] : [],
      {
        address: clientAddress(requestHeaders),
        userAgent: requestHeaders.get('user-agent'),
      },
    ))
  } catch (error) {
    redirect(`/dashboard?download_error=${encodeURIComponent(codeOf(req, error))}`)
  }
  redirect(url!)
}

/** The repository access form (Ultimate): invite the GitHub username to the kit's repository. */
export async function askRepoAccess(form: FormData) {
  const { req } = await signedIn()
  try {
    await requestRepoAccess(req, deliveryOf(req).codeHost, form.get('username'))
  } catch (error) {
    redirect(`/dashboard?repo_error=${encodeURIComponent(codeOf(req, error))}`)
  }
  // The dashboard shows the new state, not the one the browser already holds.
  revalidatePath('/dashboard')
  redirect('/dashboard#repository')
}

/** A template's Download button (works without JS): a fresh signed link, then straight to it. */
export async function downloadTemplate(form: FormData) {
  const { req } = await signedIn()
  const settings = deliveryOf(req).templateDownloads
  const requestHeaders = await headers()
  let url: string
  try {
    const id = idOf(form, 'template')
    if (id === null) throw new ServiceError(404, 'template_not_found', 'There is no such template.')
    ;({ url } = await requestTemplateDownload(req, settings, id, {
      address: clientAddress(requestHeaders),
      userAgent: requestHeaders.get('user-agent'),
    }))
  } catch (error) {
    failed(req, error, 'template_error', 'templates')
  }
  redirect(url!)
}

/**
 * A new support request. The dashboard's form is the priority support that comes with `support`:
 * without the key it refuses rather than file a normal one. The collection's hooks set the owner,
 * priority and status, and count the customer's rate limit.
 */
export async function openSupportRequest(form: FormData) {
  const { user, payload, req } = await signedIn()
  try {
    await requireFeature(payload, user.id, SUPPORT_FEATURE, req)
    await payload.create({
      collection: 'support_requests',
      // Owner, priority and status are the hooks' to set (their fields refuse input); the type asks for them anyway.
      data: {
        subject: field(form, 'subject'),
        message: field(form, 'message'),
      } as RequiredDataFromCollectionSlug<'support_requests'>,
      depth: 0,
      overrideAccess: false,
      user,
      req,
    })
  } catch (error) {
    failed(req, error, 'support_error', 'support')
  }
  revalidatePath('/dashboard')
  redirect('/dashboard#support')
}

/** What the API key form shows after a submission: the new key (this once) or why it was refused. */
export type ApiKeyFormState = { created: { name: string; key: string } | null; error: string | null }

/**
 * The API key form, through useActionState: the key travels only in this response and is never
 * stored in clear text, so it is shown once. The name follows the endpoint's rule (1 to 60 characters).
 */
export async function createApiKeyAction(_previous: ApiKeyFormState, form: FormData): Promise<ApiKeyFormState> {
  const { user, req } = await signedIn()
  const name = field(form, 'name')
  if (!name || name.length > 60) return { created: null, error: 'invalid_request' }
  try {
    const created = await createApiKey(req, user, name)
    revalidatePath('/dashboard')
    return { created: { name: created.name, key: created.key }, error: null }
  } catch (error) {
    return { created: null, error: codeOf(req, error) }
  }
}

/** A key's Revoke button; someone else's key is "not found", as on the endpoint. */
export async function revokeApiKeyAction(form: FormData) {
  const { user, req } = await signedIn()
  try {
    const id = idOf(form, 'id')
    if (id === null) throw new ServiceError(404, 'api_key_not_found', 'You have no API key with this id.')
    await revokeApiKey(req, user, id)
  } catch (error) {
    failed(req, error, 'api_key_error', 'api-keys')
  }
  revalidatePath('/dashboard')
  redirect('/dashboard#api-keys')
}

/**
 * Where a license change that failed goes back to: the dashboard's licenses, or the pricing table the
 * upgrade was offered on (which says the code in words as a failed checkout's).
 */
const LICENSE_CHANGE_ORIGINS: Record<string, string> = {
  '/dashboard': '/dashboard?license_error={code}#licenses-heading',
  '/pricing': '/pricing?checkout_error={code}',
  '/': '/?checkout_error={code}#pricing',
}

/** A plan slug as the upgrade endpoint accepts it. */
const PLAN_SLUG = /^[a-z][a-z0-9_-]{0,31}$/

/**
 * The checkout of a license change, as POST /api/licenses/:id/upgrade and /renewal run it (same rate
 * limit); a refusal goes back to the page it came from with its code.
 */
const changeLicense = async <T>(
  form: FormData,
  start: (context: Awaited<ReturnType<typeof signedIn>>, licenseId: number) => Promise<T>,
): Promise<T> => {
  const context = await signedIn()
  const from = field(form, 'from') || '/dashboard'
  // Only the listed pages (an own key: `__proto__` or `constructor` name none).
  const back = Object.hasOwn(LICENSE_CHANGE_ORIGINS, from)
    ? LICENSE_CHANGE_ORIGINS[from]!
    : LICENSE_CHANGE_ORIGINS['/dashboard']!
  const requestHeaders = await headers()
  try {
    const id = idOf(form, 'license')
    if (id === null) throw licenseNotYours()
    await enforceRateLimit(context.payload, 'checkout', {
      address: clientAddress(requestHeaders),
      email: context.user.email,
    })
    return await start(context, id)
  } catch (error) {
    redirect(back.replace('{code}', encodeURIComponent(codeOf(context.req, error))))
  }
}

/**
 * A license's Upgrade button (the dashboard and the pricing table; works without JS): the hosted
 * checkout of the difference, or, when the license's credit covers it all, the upgrade at once.
 */
export async function upgradeLicense(form: FormData) {
  const result = await changeLicense(form, ({ user, payload, req }, id) => {
    const plan = form.get('plan')
    if (typeof plan !== 'string' || !PLAN_SLUG.test(plan))
      throw new ServiceError(400, 'invalid_request', 'Choose a plan to upgrade to.')
    return startUpgrade(req, billingRuntimeOf(payload).require(), user, id, plan, { idempotencyKey: null })
  })
  if ('upgraded' in result) {
    revalidatePath('/dashboard')
    redirect('/dashboard?upgraded=1#licenses-heading')
  }
  redirect(result.url)
}

/** A license's Renew updates button (works without JS): the hosted checkout of its plan's renewal. */
export async function renewLicense(form: FormData) {
  const { url } = await changeLicense(form, ({ user, payload, req }, id) =>
    startRenewal(req, billingRuntimeOf(payload).require(), user, id, { idempotencyKey: null }),
  )
  redirect(url)
}

/** A license's Team or Installations section (each license has its own, `#team-<id>`, `#installations-<id>`). */
type LicenseSection = 'team' | 'installations'

/** The dashboard at a license's section, with what the section says in the query. */
const atSection = (section: LicenseSection, licenseId: number | null, query: Record<string, string | number>) => {
  const search = new URLSearchParams(Object.entries(query).map(([name, value]) => [name, String(value)]))
  if (licenseId !== null) search.set('license', String(licenseId))
  return `/dashboard?${search}#${licenseId === null ? 'licenses-heading' : `${section}-${licenseId}`}`
}

/** Back to the license's section with why it was refused (the box shows on that license only) and, for a limit, when to try again. */
const licenseSectionFailed = (
  req: PayloadRequest,
  error: unknown,
  section: LicenseSection,
  licenseId: number | null,
): never => {
  const query: Record<string, string | number> = { [`${section}_error`]: codeOf(req, error) }
  if (error instanceof ServiceError && error.retryAfterSeconds !== undefined) query.retry = error.retryAfterSeconds
  redirect(atSection(section, licenseId, query))
}

const licenseNotFound = licenseNotYours

/** The endpoint's own rule for the address (endpoints/license-seats.ts). */
const SEAT_EMAIL = z.string().trim().max(254).email()

/**
 * A license's "Send invitation" form: a pending seat and its claim link emailed, as POST
 * /api/licenses/:id/seats does. The page names the address from the seat's id (`?invited=`), so the
 * address never travels in a URL.
 */
export async function assignSeatAction(form: FormData) {
  const { user, payload, req } = await signedIn()
  const licenseId = idOf(form, 'license')
  const email = SEAT_EMAIL.safeParse(form.get('email'))
  // The form's own field asks for an address already; this is the browser that skipped it.
  if (!email.success) redirect(atSection('team', licenseId, { team_error: INVALID_EMAIL }))
  let seatId: number
  try {
    if (licenseId === null) throw licenseNotFound()
    ;({ id: seatId } = await assignSeat(payload, user, licenseId, email.data, {
      productName: PRODUCT_NAME,
      serverUrl: payload.config.serverURL,
    }))
  } catch (error) {
    licenseSectionFailed(req, error, 'team', licenseId)
  }
  revalidatePath('/dashboard')
  redirect(atSection('team', licenseId, { invited: seatId! }))
}

/** A member's Revoke (or a pending invitation's Cancel) button: the seat ends at once, as DELETE /api/licenses/:id/seats/:seatId. */
export async function revokeSeatAction(form: FormData) {
  const { user, payload, req } = await signedIn()
  const licenseId = idOf(form, 'license')
  try {
    const seatId = idOf(form, 'seat')
    if (licenseId === null) throw licenseNotFound()
    if (seatId === null) throw new ServiceError(404, 'seat_not_found', 'This license has no seat with this id.')
    await revokeSeat(payload, user, licenseId, seatId)
  } catch (error) {
    licenseSectionFailed(req, error, 'team', licenseId)
  }
  revalidatePath('/dashboard')
  redirect(atSection('team', licenseId, { revoked: 1 }))
}

/** An installation's Deactivate button: as DELETE /api/licenses/:id/activations/:activationId, the same daily limit. */
export async function deactivateInstallation(form: FormData) {
  const { user, payload, req } = await signedIn()
  const licenseId = idOf(form, 'license')
  try {
    const activationId = idOf(form, 'activation')
    if (licenseId === null) throw licenseNotFound()
    if (activationId === null)
      throw new ServiceError(404, 'activation_not_found', 'This license has no activation with this id.')
    await deactivateAsOwner(payload, user.id, licenseId, activationId)
  } catch (error) {
    licenseSectionFailed(req, error, 'installations', licenseId)
  }
  revalidatePath('/dashboard')
  redirect(atSection('installations', licenseId, { deactivated: 1 }))
}

/**
 * The Delete my account form: as POST /api/account/deletion, the password (or, for an account without
 * one, this session if it is from the last 10 minutes). Back to the section with the date, or why not.
 */
export async function requestDeletionAction(form: FormData) {
  const { user, payload, req } = await signedIn()
  const password = form.get('password')
  try {
    await requestAccountDeletion(
      payload,
      user,
      {
        password: typeof password === 'string' ? password : null,
        sessionId: (user as { _sid?: unknown })._sid?.toString() ?? null,
        address: clientAddress(await headers()),
      },
      runtimeOf(payload, 'privacy').deletion,
    )
  } catch (error) {
    failed(req, error, 'deletion_error', 'delete-account')
  }
  revalidatePath('/dashboard')
  redirect('/dashboard?deletion=scheduled#delete-account')
}

/** The pending deletion's Cancel button: as DELETE /api/account/deletion. */
export async function cancelDeletionAction() {
  const { user, payload, req } = await signedIn()
  try {
    await cancelAccountDeletion(payload, user.id)
  } catch (error) {
    failed(req, error, 'deletion_error', 'delete-account')
  }
  revalidatePath('/dashboard')
  redirect('/dashboard?deletion=cancelled#delete-account')
}

/** The Discord section's Disconnect button: as DELETE /api/community/discord. */
export async function disconnectDiscordAction() {
  const { user, payload, req } = await signedIn()
  const community = optionalRuntimeOf(payload, 'community')
  try {
    if (community) await disconnectDiscord(payload, community, user.id)
  } catch (error) {
    failed(req, error, 'community', 'community')
  }
  revalidatePath('/dashboard')
  redirect('/dashboard?community=disconnected#community')
}
