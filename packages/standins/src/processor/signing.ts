import crypto from 'node:crypto'

import { nowSeconds } from './ids'

/**
 * The `Stripe-Signature` header for a payload: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.payload">`,
 * exactly what `stripe.webhooks.constructEvent` verifies.
 */
export const signPayload = (payload: string, secret: string, timestamp: number = nowSeconds()): string => {
  const signature = crypto.createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex')
  return `t=${timestamp},v1=${signature}`
}
