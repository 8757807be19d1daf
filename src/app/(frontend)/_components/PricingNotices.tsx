import { CHECKOUT_ERRORS } from './pricing-data'

/** Above a pricing table: the development stand-in's notice, and why the last checkout failed, in words. */
export const PricingNotices = ({ checkoutError }: { checkoutError?: string }) => {
  const standIn = process.env.PAYMENT_STANDIN_URL
  return (
    <>
      {standIn ? (
        <p className="notice" data-testid="standin-notice">
          Development mode: checkout runs on the local processor stand-in ({standIn}). No real payment is taken.
        </p>
      ) : null}
      {checkoutError ? (
        <p role="alert" className="error-box">
          {CHECKOUT_ERRORS[checkoutError] ?? CHECKOUT_ERRORS.invalid_request}
        </p>
      ) : null}
    </>
  )
}
