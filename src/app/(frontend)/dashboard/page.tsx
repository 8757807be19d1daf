import type { Metadata } from 'next'
import { redirect } from 'next/navigation'

import { createLocalReq } from 'payload'

import { affiliateFigures } from '../../../affiliates/figures'
import '../../../affiliates/runtime'
import { listApiKeys } from '../../../auth/api-keys'
import { PRODUCT_NAME } from '../../../config/product'
import { optionalRuntimeOf, runtimeOf } from '../../../config/runtime'
import '../../../community/runtime'
import { communityViewOf } from '../../../community/sync'
import { changelogAnchor } from '../../../content/seo'
import { hasRepoAccessPlan, repoAccessStatus, storedRepoAccessStatus } from '../../../delivery/repo-access'
import { entitlementsOf } from '../../../licensing/entitlements'
import { windowOfLicense } from '../../../licensing/store'
import { windowInWords } from '../../../licensing/update-window'
import { deletionStatusOf } from '../../../privacy/deletion'
import '../../../privacy/runtime'
import type { Plan } from '../../../payload-types'
import { FEATURE_LABELS, type FeatureKey } from '../../../plans/features'
import { seatsHeldBy } from '../../../teams/seats'
import { currentUser, getPayloadClient } from '../../_lib/session'
import { CopyButton } from '../_components/CopyButton'
import { activePlans } from '../_components/pricing-data'
import { askRepoAccess, downloadKit } from './actions'
import { AffiliateSection } from './AffiliateSection'
import { ApiKeysSection } from './ApiKeysSection'
import { CommunitySection } from './CommunitySection'
import { DeletionSection } from './DeletionSection'
import {
  installationsOf,
  LISTED_VERSIONS,
  publishedTemplates,
  releaseListing,
  releaseNotes,
  supportThreads,
  teamsOf,
} from './data'
import { HeldSeatsSection } from './HeldSeatsSection'
import { InstallationsSection } from './InstallationsSection'
import { type ChangedLicense, LicenseChanges } from './LicenseChanges'
import { renewableLicenses, upgradeOffers } from './offers'
import { SupportSection } from './SupportSection'
import { TeamSection } from './TeamSection'
import { TemplatesSection } from './TemplatesSection'
import { ErrorBox, RowAction, type SectionOutcome } from './parts'
import { formatAmount, formatDate, LICENSE_STATUS_WORDS, SEAT_CLAIM_WORDS, SUBSCRIPTION_STATUS_WORDS } from './words'

export const dynamic = 'force-dynamic'

export const metadata: Metadata = { title: `Dashboard · ${PRODUCT_NAME}` }

type Props = {
  searchParams: Promise<{
    download_error?: string
    repo_error?: string
    template_error?: string
    support_error?: string
    api_key_error?: string
    license_error?: string
    /** The Delete your account section: why it was refused, or `scheduled` / `cancelled`. */
    deletion_error?: string
    deletion?: string
    /** The processor's checkout of an upgrade or a renewal returns with `paid=upgrade` or `paid=renewal`. */
    paid?: string
    /** An upgrade the license's credit paid for entirely. */
    upgraded?: string
    /** What connecting or disconnecting Discord did: `joined`, `disconnected`, or a refusal's code. */
    community?: string
    /** What opening a team invitation's link did (src/teams/claim-link.ts). */
    seat?: string
    /** A license's Team and Installations forms: which license, why refused (and the wait of a limit, in seconds), or what was done. */
    license?: string
    team_error?: string
    installations_error?: string
    retry?: string
    invited?: string
    revoked?: string
    deactivated?: string
    /** The Affiliate program section: `applied`, or why the application was refused. */
    affiliate?: string
    affiliate_error?: string
  }>
}

const planOf = (value: number | Plan | null | undefined): Plan | null =>
  value && typeof value === 'object' ? value : null

/** "Releases up to 2.x": a sentence's words at the head of a table cell. */
const capitalised = (words: string) => words.charAt(0).toUpperCase() + words.slice(1)

/** A number from the query string (an id, seconds), or null for anything else. */
const numberParam = (value: string | undefined): number | null =>
  value && /^\d{1,15}$/.test(value) ? Number(value) : null

/** What the last Team or Installations form of each license came back with: only the license it was sent from says it. */
const sectionOutcomes = (query: Awaited<Props['searchParams']>) => {
  const licenseId = numberParam(query.license)
  const none: SectionOutcome = { retry: null, done: false }
  const retry = numberParam(query.retry)
  const invited = numberParam(query.invited) ?? undefined
  return {
    team: (id: number): SectionOutcome =>
      id === licenseId ? { error: query.team_error, retry, invited, done: query.revoked === '1' } : none,
    installations: (id: number): SectionOutcome =>
      id === licenseId ? { error: query.installations_error, retry, done: query.deactivated === '1' } : none,
  }
}

/** The sentence of a team invitation's outcome, as a notice or, when nothing was claimed, an alert. */
const SeatClaimNotice = ({ outcome }: { outcome: string | undefined }) => {
  const words = outcome && Object.hasOwn(SEAT_CLAIM_WORDS, outcome) ? SEAT_CLAIM_WORDS[outcome]! : null
  if (!words) return null
  return words.ok ? (
    <p role="status" className="notice" data-testid="seat-notice">
      {words.sentence}
    </p>
  ) : (
    <p role="alert" className="error-box" data-testid="seat-notice">
      {words.sentence}
    </p>
  )
}

const DashboardPage = async ({ searchParams }: Props) => {
  const errors = await searchParams
  const user = await currentUser()
  if (!user) redirect('/sign-in?next=/dashboard')
  const payload = await getPayloadClient()
  // One request for the domain calls below: the entitlements are looked up once and shared.
  const req = await createLocalReq({ user: { ...user, collection: 'users' } }, payload)
  const [licenses, subscriptions, payments, downloads, entitlements] = await Promise.all([
    payload.find({
      collection: 'licenses',
      where: { user: { equals: user.id } },
      depth: 1,
      sort: '-createdAt',
      overrideAccess: false,
      user,
    }),
    payload.find({
      collection: 'user_subscriptions',
      where: { user: { equals: user.id } },
      depth: 1,
      sort: '-createdAt',
      overrideAccess: false,
      user,
    }),
    payload.find({
      collection: 'payment_history',
      where: { user: { equals: user.id } },
      sort: '-createdAt',
      limit: 20,
      depth: 1,
      overrideAccess: false,
      user,
    }),
    payload.find({
      collection: 'downloads',
      where: { user: { equals: user.id } },
      sort: '-createdAt',
      limit: 10,
      depth: 0,
      overrideAccess: false,
      user,
    }),
    entitlementsOf(payload, user.id, req),
  ])
  const { codeHost } = runtimeOf(payload, 'delivery')
  const has = (key: FeatureKey) => entitlements.features.has(key)
  const held = licenses.docs.map((license) => ({ license, plan: planOf(license.plan) }))
  const [repo, { releases, locked }, templates, threads, apiKeys, upgrades, renewable, teams, installations, seats] =
    await Promise.all([
      // A refresh the code host or the account's budget refuses still shows what is stored.
      hasRepoAccessPlan(req, user.id).then((allowed) =>
        allowed ? repoAccessStatus(req, codeHost).catch(() => storedRepoAccessStatus(req)) : null,
      ),
      releaseListing(req, entitlements),
      has('templates') ? publishedTemplates(payload, user) : null,
      // Requests and keys made earlier stay visible without the feature (to read, to revoke).
      supportThreads(payload, user),
      listApiKeys(req, user),
      // Quoted only for active one-time licenses, in parallel; renewals read the releases once.
      upgradeOffers(req, user, held, activePlans),
      renewableLicenses(req, held),
      // The owner's teams and installations; the seats this account holds on other people's licenses.
      teamsOf(req, user, held),
      installationsOf(req, held),
      seatsHeldBy(payload, user.id, req),
    ])
  // Only where Discord is configured, and only to a customer it concerns.
  const community = optionalRuntimeOf(payload, 'community') ? await communityViewOf(payload, user.id) : null
  // The affiliate program is offered to every customer; only this account's own row is read (null until it applies).
  const affiliates = runtimeOf(payload, 'affiliates')
  const affiliate = await affiliateFigures(req, affiliates.serverUrl, user.id)
  const newest = releases[0]
  const notes = newest ? await releaseNotes(payload, user, newest.version) : null
  const hasBilling = Boolean(user.processorCustomerId || subscriptions.docs.some((row) => row.processorCustomerId))
  const features = [...entitlements.features]
  const changed = (license: (typeof licenses.docs)[number]): ChangedLicense => ({
    id: license.id,
    key: license.key,
    planName: planOf(license.plan)?.name ?? 'plan',
  })
  const changesOf = (license: (typeof licenses.docs)[number]) => ({
    renew: renewable.has(license.id),
    upgrades: upgrades.filter((offer) => offer.licenseId === license.id),
  })
  const changeable = licenses.docs.filter(
    (license) => renewable.has(license.id) || upgrades.some((offer) => offer.licenseId === license.id),
  )
  const outcomes = sectionOutcomes(errors)
  const several = licenses.docs.length > 1
  return (
    <section className="dashboard">
      <header className="dashboard-intro">
        <h1>Your dashboard</h1>
        <p className="muted">Signed in as {user.email}</p>
      </header>
      {errors.paid === 'upgrade' || errors.paid === 'renewal' ? (
        <p role="status" className="notice" data-testid="license-change-notice">
          Payment received. Your license is being updated; reload in a moment if it has not changed yet.
        </p>
      ) : errors.upgraded === '1' ? (
        <p role="status" className="notice" data-testid="license-change-notice">
          Your license is upgraded.
        </p>
      ) : null}
      <SeatClaimNotice outcome={errors.seat} />

      <section className="card" aria-labelledby="licenses-heading">
        <h2 id="licenses-heading">Licenses</h2>
        {/* A Team or Installations form that named no license of yours comes back here. */}
        <ErrorBox
          code={
            errors.license_error ??
            (numberParam(errors.license) === null ? (errors.team_error ?? errors.installations_error) : undefined)
          }
          fallback="Your license could not be changed; please try again."
        />
        {licenses.docs.length === 0 && seats.length > 0 ? (
          <p className="muted">You have no license of your own: you use a seat on a team’s license, below.</p>
        ) : licenses.docs.length === 0 ? (
          <div className="empty">
            <p>You have no license yet. A license unlocks downloads, updates and, on Ultimate, the code repository.</p>
            <a className="button" href="/pricing">
              See the plans
            </a>
          </div>
        ) : (
          <table data-testid="licenses" className="license-table">
            <thead>
              <tr>
                <th scope="col">Plan</th>
                <th scope="col">License key</th>
                <th scope="col">Status</th>
                <th scope="col">Updates</th>
                <th scope="col">Granted</th>
              </tr>
            </thead>
            <tbody>
              {licenses.docs.map((license) => {
                const words = LICENSE_STATUS_WORDS[license.status]
                const plan = planOf(license.plan)
                return (
                  <tr key={license.id} data-status={license.status}>
                    <td data-label="Plan">{plan?.name ?? ''}</td>
                    <td data-label="License key" className="license-key">
                      <code>{license.key}</code> <CopyButton text={license.key} label="Copy key" />
                    </td>
                    <td data-label="Status">
                      <strong className={`status status-${license.status}`}>{words.label}</strong>
                      <span className="status-explanation">
                        {words.explanation}
                        {license.status === 'active' && license.validUntil
                          ? ` Valid until ${formatDate(license.validUntil)}.`
                          : ''}
                      </span>
                    </td>
                    <td data-label="Updates" className="license-updates">
                      {plan?.isFree ? (
                        <span className="muted">No downloads</span>
                      ) : (
                        <span>{capitalised(windowInWords(windowOfLicense(license)))}</span>
                      )}
                      <LicenseChanges license={changed(license)} {...changesOf(license)} />
                    </td>
                    <td data-label="Granted">{formatDate(license.grantedAt)}</td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        )}
        <h3>What your plan includes</h3>
        {features.length === 0 ? (
          <p className="muted">Nothing yet: the free plan's features appear here once it is active.</p>
        ) : (
          <ul className="features" data-testid="features">
            {features.map((feature) => (
              <li key={feature}>{FEATURE_LABELS[feature]}</li>
            ))}
          </ul>
        )}
      </section>

      {teams.map((team) => (
        <TeamSection key={team.license.id} team={team} several={several} outcome={outcomes.team(team.license.id)} />
      ))}

      {installations.map((entry) => (
        <InstallationsSection
          key={entry.license.id}
          installations={entry}
          several={several}
          outcome={outcomes.installations(entry.license.id)}
        />
      ))}

      {seats.length > 0 ? <HeldSeatsSection seats={seats} /> : null}

      <section className="card" id="download" aria-labelledby="download-heading">
        <h2 id="download-heading">Downloads</h2>
        {entitlements.hasPaidAccess ? (
          <>
            <ErrorBox code={errors.download_error} fallback="The download failed; please try again." />
            {newest ? (
              <>
                <p>Each download link is signed for you and works for a few minutes.</p>
                <form action={downloadKit}>
                  <button type="submit">
                    {locked ? 'Download the newest release you have' : 'Download the newest release'}
                  </button>
                </form>
                <h3>What’s new in {newest.version}</h3>
                {notes ? (
                  <div data-testid="release-notes">
                    <p>
                      <strong>{notes.title}</strong>
                    </p>
                    <p>{notes.summary}</p>
                    <p>
                      <a href={`/changelog#${changelogAnchor(notes.slug)}`}>The full notes for {notes.version}</a>
                    </p>
                  </div>
                ) : (
                  <p className="muted">
                    Its notes are not written yet. <a href="/changelog">What changed in earlier versions</a>
                  </p>
                )}
                <h3>Every version your license includes</h3>
                <ul className="item-list" data-testid="versions">
                  {releases.map((release) => (
                    <li key={release.version}>
                      <div className="item-main">
                        <strong>{release.version}</strong>{' '}
                        <span className="muted">· {formatDate(release.publishedAt)}</span>
                      </div>
                      <RowAction
                        action={downloadKit}
                        name="version"
                        value={release.version}
                        label="Download"
                        description={`Download version ${release.version}`}
                      />
                    </li>
                  ))}
                </ul>
                {releases.length === LISTED_VERSIONS ? (
                  <p className="muted">
                    The newest {LISTED_VERSIONS} are listed; older ones are on the <a href="/changelog">changelog</a>.
                  </p>
                ) : null}
              </>
            ) : locked ? null : (
              <div className="empty">
                <p>No release is published yet. It appears here, with its notes, the day it is out.</p>
              </div>
            )}
            {locked ? (
              <div className="locked-releases" data-testid="locked-releases">
                <p>
                  Newer releases are not included: your license includes {locked.covers}. {locked.newest}
                  {locked.count > 1 ? ` (and ${locked.count - 1} more) need` : ' needs'} a renewal of your updates or an
                  upgrade.
                </p>
                {changeable.length > 0 ? (
                  changeable.map((license) => (
                    <LicenseChanges key={license.id} license={changed(license)} {...changesOf(license)} />
                  ))
                ) : (
                  <p>
                    <a href="#licenses-heading">See your licenses</a> or <a href="/pricing">compare the plans</a>.
                  </p>
                )}
              </div>
            ) : null}
          </>
        ) : (
          <div className="empty">
            <p>Downloads come with a Standard, Ultimate or Pro license.</p>
            <a className="button button-secondary" href="/pricing">
              Compare the plans
            </a>
          </div>
        )}
        {downloads.docs.length > 0 ? (
          <>
            <h3>Your recent downloads</h3>
            <ul className="plain-list" data-testid="download-history">
              {downloads.docs.map((download) => (
                <li key={download.id}>
                  Version {download.version} on {formatDate(download.createdAt)}
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </section>

      {repo ? (
        <section className="card" id="repository" aria-labelledby="repository-heading">
          <h2 id="repository-heading">Repository access</h2>
          <p data-testid="repo-status">
            {repo.status === 'none'
              ? 'Enter your code-host username to be invited to the kit’s repository as a collaborator.'
              : repo.status === 'pending'
                ? `An invitation went to ${repo.username}. Accept it on the code host; this page shows the change once you have.`
                : repo.status === 'collaborator'
                  ? `${repo.username} is a collaborator: clone the repository and pull updates as they land.`
                  : `Access for ${repo.username}: ${repo.status}. Ask again below, or contact support.`}
          </p>
          <ErrorBox code={errors.repo_error} fallback="That did not work; please try again." />
          <form action={askRepoAccess} className="inline-fields">
            <label>
              Code-host username
              <input
                type="text"
                name="username"
                defaultValue={repo.username ?? ''}
                required
                maxLength={39}
                autoComplete="username"
              />
            </label>
            <button type="submit">{repo.status === 'none' ? 'Request access' : 'Change username'}</button>
          </form>
        </section>
      ) : null}

      {community && (community.entitled || community.link || errors.community) ? (
        <CommunitySection community={community} productName={PRODUCT_NAME} outcome={errors.community} />
      ) : null}

      {templates ? (
        <TemplatesSection
          templates={templates.docs}
          more={templates.totalDocs > templates.docs.length}
          error={errors.template_error}
        />
      ) : null}

      {has('support') || threads.length > 0 ? (
        <SupportSection threads={threads} canFile={has('support')} error={errors.support_error} />
      ) : null}

      {has('api') || apiKeys.length > 0 ? (
        <ApiKeysSection keys={apiKeys} canCreate={has('api')} error={errors.api_key_error} />
      ) : null}

      <section className="card" aria-labelledby="billing-heading">
        <h2 id="billing-heading">Billing</h2>
        {subscriptions.docs.length > 0 ? (
          <ul className="plain-list">
            {subscriptions.docs.map((subscription) => (
              <li key={subscription.id}>
                <strong>{planOf(subscription.plan)?.name ?? 'Subscription'}</strong>
                {subscription.billingCycle ? `, billed ${subscription.billingCycle}` : ''}:{' '}
                {SUBSCRIPTION_STATUS_WORDS[subscription.status]}.{' '}
                {subscription.currentPeriodEnd && ['active', 'trialing', 'past_due'].includes(subscription.status)
                  ? subscription.cancelAtPeriodEnd
                    ? `Ends on ${formatDate(subscription.currentPeriodEnd)}.`
                    : `Renews on ${formatDate(subscription.currentPeriodEnd)}.`
                  : ''}
              </li>
            ))}
          </ul>
        ) : null}
        {hasBilling ? (
          <form action="/api/customer_portal" method="get">
            <input type="hidden" name="return_url" value="/dashboard" />
            <button type="submit">Manage billing</button>
            <span className="muted"> Cards, invoices and cancellation, on the payment processor’s portal.</span>
          </form>
        ) : (
          <p className="muted">No billing account yet: it is made with your first purchase.</p>
        )}
        {payments.docs.length > 0 ? (
          <>
            <h3>Payments</h3>
            <table className="payments">
              <thead>
                <tr>
                  <th scope="col">Date</th>
                  <th scope="col">Plan</th>
                  <th scope="col">Amount</th>
                  <th scope="col">Tax</th>
                  <th scope="col">Status</th>
                  <th scope="col">Invoice</th>
                </tr>
              </thead>
              <tbody>
                {payments.docs.map((payment) => (
                  <tr key={payment.id}>
                    <td data-label="Date">{formatDate(payment.paidAt ?? payment.createdAt)}</td>
                    <td data-label="Plan">{planOf(payment.plan)?.name ?? <span className="muted">—</span>}</td>
                    <td data-label="Amount">
                      {formatAmount(payment.amount, payment.currency)}
                      {payment.refundedAmount
                        ? ` (${formatAmount(payment.refundedAmount, payment.currency)} refunded)`
                        : ''}
                    </td>
                    <td data-label="Tax">
                      {typeof payment.taxAmount === 'number' ? (
                        formatAmount(payment.taxAmount, payment.currency)
                      ) : (
                        <span className="muted">—</span>
                      )}
                    </td>
                    <td data-label="Status">
                      {payment.status === 'succeeded' ? 'Paid' : 'Failed'}
                      {payment.paymentType === 'recurring' ? ', subscription' : ', one-time'}
                    </td>
                    <td data-label="Invoice">
                      {payment.invoiceUrl ? (
                        <a href={payment.invoiceUrl}>
                          {payment.processorInvoiceId ? `Invoice ${payment.invoiceNumber ?? ''}`.trim() : 'Receipt'}
                        </a>
                      ) : (
                        <span className="muted">none</span>
                      )}
                      {payment.invoicePdf ? (
                        <>
                          {' · '}
                          <a href={payment.invoicePdf}>PDF</a>
                        </>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        ) : null}
      </section>

      <section className="card" id="your-data" aria-labelledby="your-data-heading">
        <h2 id="your-data-heading">Your data</h2>
        <p>
          Everything we hold about your account, in one JSON file: your profile and sign-ins, licenses and
          installations, payments and invoices, downloads, support messages and API keys (never the keys themselves).
        </p>
        <a className="button button-secondary" href="/api/account/export" download data-testid="export-data">
          Download my data
        </a>
      </section>

      <AffiliateSection
        figures={affiliate}
        email={user.email}
        holdDays={affiliates.settings.holdDays}
        done={errors.affiliate}
        error={errors.affiliate_error}
      />

      <DeletionSection
        pending={deletionStatusOf(user)}
        hasPassword={Boolean(user.passwordSet)}
        graceDays={runtimeOf(payload, 'privacy').deletion.graceDays}
        error={errors.deletion_error}
        done={errors.deletion}
      />
    </section>
  )
}

export default DashboardPage
