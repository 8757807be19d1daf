import { redirect } from 'next/navigation'

import { signOut } from '../../../auth/actions'
import { currentUser, getPayloadClient } from '../../../auth/session'
import { entitlementsOf } from '../../../licensing/entitlements'

export const dynamic = 'force-dynamic'

const DashboardPage = async () => {
  const user = await currentUser()
  if (!user) redirect('/sign-in?next=/dashboard')
  const payload = await getPayloadClient()
  const [licenses, subscriptions, payments, entitlements] = await Promise.all([
    payload.find({ collection: 'licenses', where: { user: { equals: user.id } }, depth: 1, sort: '-createdAt', overrideAccess: false, user }),
    payload.find({ collection: 'user_subscriptions', where: { user: { equals: user.id } }, depth: 1, overrideAccess: false, user }),
    payload.find({ collection: 'payment_history', where: { user: { equals: user.id } }, sort: '-createdAt', limit: 20, overrideAccess: false, user }),
    entitlementsOf(payload, user.id),
  ])
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
