/**
 * Above a pricing table: the development stand-in's notice, and why the last checkout failed, in words
 * (`?checkout_error=<code>`, filled in by the pricing island, `_islands/pricing.ts`: the page is one
 * cached HTML for everyone).
 */
export const PricingNotices = () => {
  const standIn = process.env.PAYMENT_STANDIN_URL
  return (
    <>
      {standIn ? (
        <p className="notice" data-testid="standin-notice">
          Development mode: checkout runs on the local processor stand-in ({standIn}). No real payment is taken.
        </p>
      ) : null}
      <p role="alert" className="error-box" data-island="checkout-error" hidden suppressHydrationWarning />
    </>
  )
}
