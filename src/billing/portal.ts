import type { PayloadRequest } from 'payload'

import { enforceRateLimit } from '../auth/rate-limit'
import { requireAccount } from '../http/account'
import { ServiceError } from '../http/errors'
import { sameSitePath } from '../http/paths'
import { processorCustomerOf } from './customers'
import { processorFailure } from './errors'
import type { ConfiguredBilling } from './runtime'

/**
 * A billing portal session for the signed-in user, returning to a same-site path afterwards. Each one is
 * a processor request: limited per client address and per account like a checkout.
 */
export const createPortalSession = async (
  req: PayloadRequest,
  billing: ConfiguredBilling,
  returnUrl: unknown,
  address: string | null,
): Promise<{ url: string }> => {
  const user = requireAccount(req, 'Sign in to manage billing.')
  const path =
    returnUrl === undefined || returnUrl === null || returnUrl === ''
      ? '/dashboard'
      : sameSitePath(returnUrl, billing.serverUrl)
  if (!path)
    throw new ServiceError(400, 'invalid_return_url', 'return_url must be a path on this site, such as /dashboard.')
  const customer = await processorCustomerOf(req, user)
  if (!customer) throw new ServiceError(404, 'no_billing_account', 'There is no billing account for this user yet.')
  await enforceRateLimit(req.payload, 'billing_portal', { address, email: user.email })
  try {
    const session = await billing.processor.billingPortal.sessions.create({
      customer,
      return_url: `${billing.serverUrl}${path}`,
    })
    return { url: session.url }
  } catch (error) {
    throw processorFailure(error)
  }
}
