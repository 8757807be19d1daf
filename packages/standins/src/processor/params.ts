import qs from 'qs'
import type Stripe from 'stripe'

import { invalidInteger, invalidRequest } from './errors'

/** Request parameters as Stripe's form encoding carries them (`a[b][0]=c`), parsed by qs. */
export type Params = qs.ParsedQs
type Value = Params[string]

/** Line items and expansions can be long; nothing Stripe accepts nests deeper than this. */
export const parseParams = (encoded: string): Params => qs.parse(encoded, { arrayLimit: 1000, depth: 10 })

const isParams = (value: Value | string | Params): value is Params =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

export const text = (value: Value): string | undefined => (typeof value === 'string' ? value : undefined)

/** Empty strings are how forms unset a field; they read as absent. */
export const nonEmptyText = (value: Value): string | undefined => {
  const found = text(value)
  return found === '' ? undefined : found
}

export const integer = (value: Value, param: string): number | undefined => {
  const found = text(value)
  if (found === undefined || found === '') return undefined
  if (!/^-?\d+$/.test(found)) throw invalidInteger(param, found)
  return Number(found)
}

/** Stripe's decimals (`percent_off=25.5`): plain digits with an optional fraction. */
export const decimal = (value: Value, param: string): number | undefined => {
  const found = text(value)
  if (found === undefined || found === '') return undefined
  if (!/^-?(\d+\.?\d*|\.\d+)$/.test(found)) throw invalidRequest(`Invalid decimal: ${found}`, { param })
  return Number(found)
}

export const boolean = (value: Value, param: string): boolean | undefined => {
  const found = text(value)
  if (found === undefined || found === '') return undefined
  if (found === 'true') return true
  if (found === 'false') return false
  throw invalidRequest(`Invalid boolean: ${found}`, { param })
}

export const object = (value: Value): Params => (isParams(value) ? value : {})

/** `x[0][...]=` arrives as an array, or as an object keyed by index past qs's array limit. */
export const objects = (value: Value): Params[] => {
  if (Array.isArray(value)) return value.filter(isParams)
  if (isParams(value)) return Object.values(value).filter(isParams)
  return []
}

export const strings = (value: Value): string[] => {
  if (typeof value === 'string') return [value]
  if (Array.isArray(value)) return value.filter((entry): entry is string => typeof entry === 'string')
  if (isParams(value)) return Object.values(value).filter((entry): entry is string => typeof entry === 'string')
  return []
}

/**
 * Metadata as Stripe applies it to an existing object: keys are merged, and an empty value (or an
 * empty `metadata=`) removes keys.
 */
export const mergeMetadata = (current: Stripe.Metadata, value: Value): Stripe.Metadata => {
  if (value === '') return {}
  const merged = { ...current }
  for (const [key, entry] of Object.entries(object(value))) {
    if (typeof entry !== 'string') continue
    if (entry === '') delete merged[key]
    else merged[key] = entry
  }
  return merged
}

export const metadata = (value: Value): Stripe.Metadata => mergeMetadata({}, value)
