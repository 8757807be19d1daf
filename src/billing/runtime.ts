import type { Config } from 'payload'
import type Stripe from 'stripe'

import { optionalRuntimeOf } from '../config/runtime'
import { ServiceError } from '../http/errors'
import { DEFAULT_RECOVERY, type RecoverySettings } from '../recovery/states'
import { checkoutSessionReader, type KeptReader, priceReader } from './kept-reads'
import { createProcessorClient, keyMode, type KeyMode } from './processor'
import type { BillingSettings } from './purchases'

export type BillingOptions = {
  secretKey?: string | null
  /** One secret, or several comma-separated while rolling it. */
  webhookSecret?: string | null
  apiUrl?: string | null
  timeoutMs?: number
  serverUrl: string
  graceDays: number
  /** Tax and invoices at checkout (PAYMENT_AUTOMATIC_TAX, PAYMENT_TAX_ID_COLLECTION, PAYMENT_INVOICES). */
  taxes?: CheckoutTaxes
  /** Checkout recovery (CHECKOUT_RECOVERY, CHECKOUT_EXPIRES_HOURS and the email's timings). */
  recovery?: RecoverySettings
}

export type CheckoutTaxes = { automaticTax: boolean; taxIdCollection: boolean; invoices: boolean }

const NO_TAXES: CheckoutTaxes = { automaticTax: false, taxIdCollection: false, invoices: false }

export type ConfiguredBilling = {
  processor: Stripe
  /** Prices and checkout sessions as requests read them: once, then kept (./kept-reads.ts). */
  prices: KeptReader<Stripe.Price>
  checkoutSessions: KeptReader<Stripe.Checkout.Session>
  webhookSecrets: string[]
  mode: KeyMode
  serverUrl: string
  settings: BillingSettings
  taxes: CheckoutTaxes
}

export type BillingRuntime = {
  /** The processor and its secrets, or a 503 `processor_not_configured` when they are missing. */
  require: () => ConfiguredBilling
}

declare module '../config/runtime' {
  interface PluginRuntimes {
    billing: BillingRuntime
  }
}

/** Billing's configuration, checked once; the processor client is created on first use. */
export const createBillingRuntime = (options: BillingOptions): BillingRuntime => {
  let configured: ConfiguredBilling | null = null
  return {
    require: () => {
      if (configured) return configured
      const mode = options.secretKey ? keyMode(options.secretKey) : null
      const webhookSecrets = (options.webhookSecret ?? '')
        .split(',')
        .map((secret) => secret.trim())
        .filter(Boolean)
      if (!options.secretKey || !mode || webhookSecrets.length === 0) {
        throw new ServiceError(503, 'processor_not_configured', 'Payments are not configured on this server.')
      }
      const processor = createProcessorClient({
        secretKey: options.secretKey,
        apiUrl: options.apiUrl,
        timeoutMs: options.timeoutMs,
      })
      configured = {
        processor,
        prices: priceReader(processor),
        checkoutSessions: checkoutSessionReader(processor),
        webhookSecrets,
        mode,
        serverUrl: options.serverUrl,
        settings: { graceDays: options.graceDays, recovery: options.recovery ?? DEFAULT_RECOVERY },
        taxes: options.taxes ?? NO_TAXES,
      }
      return configured
    },
  }
}

/** The billing runtime the billing plugin registered on the Payload config. */
export const billingRuntimeOf = (payload: { config: Pick<Config, 'custom'> }): BillingRuntime => {
  const runtime = optionalRuntimeOf(payload, 'billing')
  if (!runtime) throw new ServiceError(503, 'processor_not_configured', 'Payments are not configured on this server.')
  return runtime
}
