import { redirect } from 'next/navigation'

import { createLocalReq } from 'payload'

import { signOut } from '../../../auth/actions'
import { currentUser, getPayloadClient } from '../../../auth/session'
import { askRepoAccess, downloadKit } from '../../../delivery/actions'
import { type CodeHostProvider, hasRepoAccessPlan, repoAccessStatus } from '../../../delivery/repo-access'
import { entitlementsOf } from '../../../licensing/entitlements'

const MESSAGES: Record<string, string> = {
  license_required: 'Downloading the kit needs an active license.',
  version_not_allowed: 'Your license does not include that version.',
  version_not_found: 'No release is available yet.',
  invalid_username: 'That username does not exist on the code host.',
  username_taken: 'That username already has access through another account.',
  rate_limited: 'The code host is busy; please try again in a few minutes.',
  code_host_unavailable: 'The code host is not reachable right now; please try again.',
  plan_required: 'Repository access comes with the Ultimate license.',
}

export const dynamic = 'force-dynamic'

type Props = { searchParams: Promise<{ download_error?: string; repo_error?: string }> }

const DashboardPage = async ({ searchParams }: Props) => {
  const { download_error: downloadError, repo_error: repoError } = await searchParams
  const user = await currentUser()
  if (!user) redirect('/sign-in?next=/dashboard')
  const payload = await getPayloadClient()
  const [licenses, subscriptions, payments, entitlements] = await Promise.all([
    payload.find({ collection: 'licenses', where: { user: { equals: user.id } }, depth: 1, sort: '-createdAt', overrideAccess: false, user }),
    payload.find({ collection: 'user_subscriptions', where: { user: { equals: user.id } }, depth: 1, overrideAccess: false, user }),
    payload.find({ collection: 'payment_history', where: { user: { equals: user.id } }, sort: '-createdAt', limit: 20, overrideAccess: false, user }),
    entitlementsOf(payload, user.id),
  ])
  const req = await createLocalReq({ user: { ...user, collection: 'users' } }, payload)
  const codeHost = (payload.config.custom?.delivery as { codeHost: CodeHostProvider }).codeHost
  const repo = (await hasRepoAccessPlan(req, user.id)) ? await repoAccessStatus(req, codeHost).catch(() => null) : null
  const hasBilling = Boolean(user.processorCustomerId || subscriptions.docs.some((row) => row.processorCustomerId))
  return (
    <section>
      <h1>Your dashboard</h1>
      <form action={signOut} className="signed-in">
        Signed in as {user.email}.{' '}
        <button type="submit" className="link">
          Sign out
        </button>
      </form>
      <h2>Licenses</h2>
      {licenses.docs.length === 0 ? (
        <p>
          No license yet. <a href="/#pricing">See the plans</a>.
        </p>
      ) : (
        <table data-testid="licenses">
          <thead>
            <tr>
              <th>Plan</th>
              <th>Key</th>
              <th>Status</th>
              <th>Granted</th>
            </tr>
          </thead>
          <tbody>
            {licenses.docs.map((license) => (
              <tr key={license.id} data-status={license.status}>
                <td>{typeof license.plan === 'object' ? license.plan.name : ''}</td>
                <td>
                  <code>{license.key}</code>
                </td>
                <td>{license.status}</td>
                <td>{license.grantedAt ? new Date(license.grantedAt).toLocaleDateString('en-US') : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p>Features: {[...entitlements.features].join(', ') || 'none'}</p>
      {entitlements.hasPaidAccess ? (
        <section id="download">
          <h2>Download</h2>
          {downloadError ? <p role="alert" className="error">{MESSAGES[downloadError] ?? 'The download failed; please try again.'}</p> : null}
          <form action={downloadKit}>
            <button type="submit">Download the newest release</button>
          </form>
        </section>
      ) : null}
      {repo ? (
        <section id="repository">
          <h2>Repository access</h2>
          <p data-testid="repo-status">
            {repo.status === 'none'
              ? 'Enter your code-host username to be invited as a collaborator.'
              : repo.status === 'pending'
                ? `Invitation sent to ${repo.username}: accept it on the code host.`
                : repo.status === 'collaborator'
                  ? `${repo.username} is a collaborator.`
                  : `Access for ${repo.username}: ${repo.status}.`}
          </p>
          {repoError ? <p role="alert" className="error">{MESSAGES[repoError] ?? 'That did not work; please try again.'}</p> : null}
          <form action={askRepoAccess}>
            <label>
              Username <input type="text" name="username" defaultValue={repo.username ?? ''} required maxLength={39} />
            </label>{' '}
            <button type="submit">{repo.status === 'none' ? 'Request access' : 'Change username'}</button>
          </form>
        </section>
      ) : null}
      {subscriptions.docs.length > 0 ? (
        <>
          <h2>Subscriptions</h2>
          <ul>
            {subscriptions.docs.map((subscription) => (
              <li key={subscription.id}>
                {typeof subscription.plan === 'object' ? subscription.plan?.name : ''} ({subscription.billingCycle}):{' '}
                {subscription.status}
                {subscription.cancelAtPeriodEnd ? ', cancels at period end' : ''}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {hasBilling ? (
        <form action="/api/customer_portal" method="get">
          <input type="hidden" name="return_url" value="/dashboard" />
          <button type="submit">Manage billing</button>
        </form>
      ) : null}
      {payments.docs.length > 0 ? (
        <>
          <h2>Payments</h2>
          <ul>
            {payments.docs.map((payment) => (
              <li key={payment.id}>
                {(payment.amount / 100).toFixed(2)} {payment.currency.toUpperCase()} ({payment.paymentType}, {payment.status})
                {payment.invoiceUrl ? (
                  <>
                    {' '}
                    <a href={payment.invoiceUrl}>invoice</a>
                  </>
                ) : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  )
}

export default DashboardPage
