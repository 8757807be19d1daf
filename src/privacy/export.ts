import type { Payload, PayloadRequest, Where } from 'payload'

import { affiliateFigures } from '../affiliates/figures'

import type {
  CheckoutRecovery,
  License,
  LicenseActivation,
  LicenseSeat,
  Plan,
  SupportReply,
  Template,
  User,
} from '../payload-types'
import { emailHash } from '../recovery/links'
import { isUnsubscribed } from '../recovery/unsubscribe'

/** The id of a relationship as Payload returns it at depth 0 (or a populated row's id). */
const idOf = (value: number | { id: number } | null | undefined): number | null =>
  value === null || value === undefined ? null : typeof value === 'number' ? value : value.id

/** Analytics properties that record a staff decision or actor rather than something of the customer's. */
const STAFF_PROPERTIES = new Set(['reason', 'by'])

const withoutStaffProperties = (properties: unknown): unknown =>
  properties && typeof properties === 'object' && !Array.isArray(properties)
    ? Object.fromEntries(Object.entries(properties).filter(([key]) => !STAFF_PROPERTIES.has(key)))
    : properties

/**
 * Everything the service holds about one account (GDPR articles 15 and 20), as one JSON document: the
 * profile, sign-in identities, licenses with their activations and the seats they gave, seats held,
 * purchases, subscriptions, payments with their invoices, downloads, support requests with their replies,
 * API keys, repository access, the Discord link, abandoned checkouts and whether the address unsubscribed from
 * their emails, and analytics events. Only rows of this account; never a password hash,
 * a token or key hash, a session, another customer's key, or a staff-only note (an override's reason, a
 * revocation's reason, who acted).
 */
export const exportAccount = async (payload: Payload, user: User) => {
  const all = async <T>(collection: Parameters<Payload['find']>[0]['collection'], where: Where): Promise<T[]> =>
    (await payload.find({ collection, where, depth: 0, pagination: false, overrideAccess: true, sort: 'createdAt' }))
      .docs as T[]
  const own: Where = { user: { equals: user.id } }

  const [
    plans,
    identities,
    licenses,
    heldSeats,
    purchases,
    subscriptions,
    payments,
    downloads,
    templateDownloads,
    requests,
    apiKeys,
    repoAccess,
    events,
    discordLinks,
    discordRoles,
  ] = await Promise.all([
    all<Plan>('plans', {}),
    all<{ provider: string; subject: string; email?: string | null; createdAt: string }>('oauth_identities', own),
    all<License>('licenses', own),
    all<LicenseSeat>('license_seats', { member: { equals: user.id } }),
    all<Record<string, unknown>>('one_time_purchases', own),
    all<Record<string, unknown>>('user_subscriptions', own),
    all<Record<string, unknown>>('payment_history', own),
    all<{
      version?: string | null
      license?: number | null
      clientAddress?: string | null
      userAgent?: string | null
      createdAt: string
    }>('downloads', own),
    all<{ template: number | Template; clientAddress?: string | null; userAgent?: string | null; createdAt: string }>(
      'template_downloads',
      own,
    ),
    all<{
      id: number
      subject: string
      message: string
      priority?: string | null
      status?: string | null
      createdAt: string
    }>('support_requests', own),
    all<{ name: string; prefix: string; createdAt: string; lastUsedAt?: string | null; revokedAt?: string | null }>(
      'api_keys',
      own,
    ),
    all<{ username: string; status: string; invitedAt?: string | null; acceptedAt?: string | null; createdAt: string }>(
      'repo_access',
      own,
    ),
    all<{ name: string; occurredAt: string; properties?: unknown }>('analytics_events', own),
    all<{ discordUserId?: string | null; discordUsername?: string | null; linkedAt?: string | null }>(
      'discord_links',
      own,
    ),
    all<{ discordUserId: string; roleId: string; state: string; grantedAt?: string | null }>('community_grants', own),
  ])
  // Abandoned checkouts of this account, or left with its address while signed out; the affiliate program.
  const [checkouts, unsubscribed, affiliate] = await Promise.all([
    all<CheckoutRecovery>('checkout_recoveries', {
      or: [own, { emailHash: { equals: emailHash(user.email) } }],
    }),
    isUnsubscribed(payload, user.email),
    affiliateFigures({ payload } as PayloadRequest, '', user.id),
  ])
  const licenseIds = licenses.map((license) => license.id)
  const [activations, givenSeats, replies, heldLicenses, templates] = await Promise.all([
    licenseIds.length ? all<LicenseActivation>('license_activations', { license: { in: licenseIds } }) : [],
    licenseIds.length ? all<LicenseSeat>('license_seats', { license: { in: licenseIds } }) : [],
    requests.length
      ? all<SupportReply>('support_replies', { request: { in: requests.map((request) => request.id) } })
      : [],
    heldSeats.length
      ? all<License>('licenses', {
          id: { in: heldSeats.map((seat) => idOf(seat.license)).filter((id) => id !== null) },
        })
      : [],
    templateDownloads.length
      ? all<Template>('templates', { id: { in: templateDownloads.map((row) => idOf(row.template)) } })
      : [],
  ])

  const planSlug = (plan: number | Plan | null | undefined) => plans.find((row) => row.id === idOf(plan))?.slug ?? null
  const keyOf = (id: number | null | undefined) => licenses.find((license) => license.id === id)?.key ?? null
  const pick = <T extends Record<string, unknown>>(row: T, fields: (keyof T)[]) =>
    Object.fromEntries(fields.map((field) => [field, row[field] ?? null]))

  return {
    exportedAt: new Date().toISOString(),
    profile: {
      id: user.id,
      email: user.email,
      name: user.name ?? null,
      emailVerified: Boolean(user.emailVerified),
      pendingEmail: user.pendingEmail ?? null,
      createdAt: user.createdAt,
    },
    identities: identities.map((identity) => ({
      provider: identity.provider,
      accountId: identity.subject,
      email: identity.email ?? null,
      linkedAt: identity.createdAt,
    })),
    licenses: licenses.map((license) => ({
      key: license.key,
      plan: planSlug(license.plan),
      status: license.status,
      source: license.source,
      validUntil: license.validUntil ?? null,
      updates: {
        policy: license.updatePolicy ?? null,
        major: license.updatesMajor ?? null,
        until: license.updatesUntil ?? null,
      },
      seats: license.seats ?? null,
      grantedAt: license.grantedAt ?? null,
      upgradedAt: license.upgradedAt ?? null,
      revokedAt: license.revokedAt ?? null,
      downloadCount: license.downloadCount ?? 0,
      lastDownloadedAt: license.lastDownloadedAt ?? null,
      activations: activations
        .filter((activation) => idOf(activation.license) === license.id)
        .map((activation) => ({
          fingerprint: activation.fingerprint,
          label: activation.label ?? null,
          createdAt: activation.createdAt,
          lastValidatedAt: activation.lastValidatedAt ?? null,
          deactivatedAt: activation.deactivatedAt ?? null,
        })),
      seatsGiven: givenSeats
        .filter((seat) => idOf(seat.license) === license.id)
        .map((seat) => ({
          email: seat.email,
          status: seat.status,
          createdAt: seat.createdAt,
          claimedAt: seat.claimedAt ?? null,
          revokedAt: seat.revokedAt ?? null,
        })),
    })),
    // A seat's license belongs to the customer who gave it: its plan, never its key.
    seats: heldSeats.map((seat) => ({
      plan: planSlug(heldLicenses.find((license) => license.id === idOf(seat.license))?.plan),
      email: seat.email,
      status: seat.status,
      createdAt: seat.createdAt,
      claimedAt: seat.claimedAt ?? null,
      revokedAt: seat.revokedAt ?? null,
    })),
    purchases: purchases.map((row) => ({
      plan: planSlug(row.plan as number | null),
      ...pick(row, [
        'email',
        'quantity',
        'amount',
        'taxAmount',
        'currency',
        'status',
        'refundedAmount',
        'disputeStatus',
        'grantedAt',
        'revokedAt',
        'createdAt',
      ]),
    })),
    subscriptions: subscriptions.map((row) => ({
      plan: planSlug(row.plan as number | null),
      ...pick(row, [
        'email',
        'status',
        'billingCycle',
        'quantity',
        'currentPeriodEnd',
        'cancelAtPeriodEnd',
        'canceledAt',
        'createdAt',
      ]),
    })),
    payments: payments.map((row) => ({
      plan: planSlug(row.plan as number | null),
      ...pick(row, [
        'email',
        'amount',
        'taxAmount',
        'currency',
        'paymentType',
        'status',
        'refundedAmount',
        'disputeStatus',
        'invoiceNumber',
        'invoiceUrl',
        'invoicePdf',
        'paidAt',
        'createdAt',
      ]),
    })),
    downloads: [
      ...downloads.map((row) => ({
        kind: 'release' as const,
        version: row.version ?? null,
        license: keyOf(row.license),
        clientAddress: row.clientAddress ?? null,
        userAgent: row.userAgent ?? null,
        at: row.createdAt,
      })),
      ...templateDownloads.map((row) => ({
        kind: 'template' as const,
        template: templates.find((template) => template.id === idOf(row.template))?.name ?? null,
        clientAddress: row.clientAddress ?? null,
        userAgent: row.userAgent ?? null,
        at: row.createdAt,
      })),
    ],
    supportRequests: requests.map((request) => ({
      subject: request.subject,
      message: request.message,
      priority: request.priority ?? null,
      status: request.status ?? null,
      createdAt: request.createdAt,
      replies: replies
        .filter((reply) => idOf(reply.request) === request.id)
        .map((reply) => ({ body: reply.body, fromStaff: Boolean(reply.fromStaff), createdAt: reply.createdAt })),
    })),
    apiKeys: apiKeys.map((key) => ({
      name: key.name,
      prefix: key.prefix,
      createdAt: key.createdAt,
      lastUsedAt: key.lastUsedAt ?? null,
      revokedAt: key.revokedAt ?? null,
    })),
    repoAccess: repoAccess.map((row) => ({
      username: row.username,
      status: row.status,
      invitedAt: row.invitedAt ?? null,
      acceptedAt: row.acceptedAt ?? null,
      createdAt: row.createdAt,
    })),
    // The Discord account connected now (none after a disconnect), and the roles given on Discord.
    discord: discordLinks[0]?.discordUserId
      ? {
          userId: discordLinks[0].discordUserId,
          username: discordLinks[0].discordUsername ?? null,
          linkedAt: discordLinks[0].linkedAt ?? null,
          roles: discordRoles.map((role) => ({
            discordUserId: role.discordUserId,
            roleId: role.roleId,
            state: role.state,
            grantedAt: role.grantedAt ?? null,
          })),
        }
      : null,
    abandonedCheckouts: checkouts.map((row) => ({
      email: row.email ?? null,
      plan: row.plan ?? null,
      amount: row.amount ?? null,
      currency: row.currency ?? null,
      startedAt: row.startedAt ?? null,
      expiredAt: row.expiredAt ?? null,
      status: row.status,
      emailedAt: row.emailedAt ?? null,
      recoveredAt: row.recoveredAt ?? null,
    })),
    recoveryEmailsUnsubscribed: unsubscribed,
    // The affiliate program: the code, standing, rate, payout email, visits, sales and commissions per currency.
    affiliate: affiliate
      ? {
          code: affiliate.code,
          status: affiliate.status,
          rateBps: affiliate.rateBps,
          payoutEmail: affiliate.payoutEmail,
          clicks: affiliate.clicks,
          sales: affiliate.sales,
          commissions: affiliate.commissions,
        }
      : null,
    analyticsEvents: events.map((event) => ({
      name: event.name,
      occurredAt: event.occurredAt,
      properties: withoutStaffProperties(event.properties) ?? null,
    })),
  }
}
