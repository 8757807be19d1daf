import { Suspense } from 'react'

import { CheckoutErrorNotice } from './CheckoutErrorNotice'

/** Above a pricing table: the development stand-in's notice, and why the last checkout failed, in words. */
export const PricingNotices = () => {
  const standIn = process.env.PAYMENT_STANDIN_URL
  return (
    <>
      {standIn ? (
        <p className="notice" data-testid="standin-notice">
          Development mode: checkout runs on the local processor stand-in ({standIn}). No real payment is taken.
        </p>
      ) : null}
      <Suspense fallback={null}>
        <CheckoutErrorNotice />
      </Suspense>
    </>
  )
}
