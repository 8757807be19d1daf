/** Where a failed checkout comes back to (the action redirects there with `checkout_error`). */
export type PricingOrigin = '/' | '/pricing'
