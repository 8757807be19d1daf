'use client'

import { useSearchParams } from 'next/navigation'

import { CHECKOUT_ERRORS } from './checkout-errors'

/**
 * Why the last checkout failed (`?checkout_error=<code>`, where the checkout action sends the visitor
 * back), read in the browser: the storefront's HTML is one cached page for everyone, so it cannot
 * depend on the query. An unknown code gets the general sentence, never itself.
 */
export const CheckoutErrorNotice = () => {
  const code = useSearchParams().get('checkout_error')
  if (!code) return null
  return (
    <p role="alert" className="error-box">
      {Object.hasOwn(CHECKOUT_ERRORS, code) ? CHECKOUT_ERRORS[code] : CHECKOUT_ERRORS.invalid_request}
    </p>
  )
}
