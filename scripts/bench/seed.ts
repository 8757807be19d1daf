/**
 * What the benchmarked paths need, made through the server's own API as an operator and customers
 * would: the first admin, customers who buy Ultimate on the processor stand-in, their API keys, more
 * (manual) Ultimate licenses for validation, a published release, and the pages to render.
 */
import crypto from 'node:crypto'
import zlib from 'node:zlib'

import { generateLicenseKey } from '../../src/licensing/keys'
import { api, clientAddress, inParallel, payOnStandIn } from './http'
import { PRICES } from './settings'

export const RELEASE_VERSION = '1.0.0'
/** The service allows a user this many live API keys. */
const KEYS_PER_CUSTOMER = 10
const PASSWORD = 'bench-password-0123456789'

export type Seeded = {
  /** The customer whose session (`JWT <token>`) the floor and the session download use. */
  customerJwt: string
  apiKeys: string[]
  licenseKeys: string[]
  blogPath: string
}

type Customer = { id: number; email: string; jwt: string }

const signIn = async (email: string, address: string): Promise<string> => {
  const { token } = await api<{ token: string }>('/api/users/login', { json: { email, password: PASSWORD }, address })
  return `JWT ${token}`
}

/** A customer account (made by the admin, email vouched for), signed in, who buys Ultimate through checkout. */
const customerWithPurchase = async (adminJwt: string, index: number): Promise<Customer> => {
  const email = `bench-customer-${index}@example.test`
  const address = clientAddress(index)
  const { doc } = await api<{ doc: { id: number } }>('/api/users', {
    authorization: adminJwt,
    json: { email, password: PASSWORD, roles: ['customer'], emailVerified: true },
  })
  const jwt = await signIn(email, address)
  const session = await api<{ id: string }>('/api/checkout_sessions', {
    authorization: jwt,
    address,
    json: { priceId: PRICES.ultimateLifetime },
  })
  await payOnStandIn({ sessions: [{ id: session.id, email }], deliver: true })
  const { docs } = await api<{ docs: { status: string }[] }>('/api/licenses?depth=0', { authorization: jwt })
  if (docs[0]?.status !== 'active')
    throw new Error(`${email} paid for Ultimate but holds no active license: ${JSON.stringify(docs)}`)
  return { id: doc.id, email, jwt }
}

const createApiKeys = async (customer: Customer): Promise<string[]> => {
  const keys: string[] = []
  for (let index = 0; index < KEYS_PER_CUSTOMER; index += 1) {
    const { key } = await api<{ key: string }>('/api/account/api-keys', {
      authorization: customer.jwt,
      json: { name: `bench ${index}` },
    })
    keys.push(key)
  }
  return keys
}

/** Staff grant licenses by hand in the admin; this is the same REST create. */
const grantLicenses = async (adminJwt: string, customers: Customer[], count: number): Promise<string[]> => {
  const { docs } = await api<{ docs: { id: number }[] }>('/api/plans?where[slug][equals]=ultimate&depth=0')
  const plan = docs[0]?.id
  if (plan === undefined) throw new Error('no ultimate plan: the server did not seed its plans')
  return inParallel(
    Array.from({ length: count }, (_, index) => index),
    4,
    async (index) => {
      const owner = customers[index % customers.length] as Customer
      const key = generateLicenseKey()
      await api('/api/licenses', {
        authorization: adminJwt,
        json: {
          key,
          user: owner.id,
          email: owner.email,
          plan,
          source: 'manual',
          status: 'active',
          grantedAt: new Date().toISOString(),
        },
      })
      return key
    },
  )
}

/** A real (random, gzip) archive: Payload checks an upload's type from its bytes. */
const publishRelease = async (adminJwt: string) => {
  const bytes = zlib.gzipSync(crypto.randomBytes(64 * 1024))
  const form = new FormData()
  form.append(
    '_payload',
    JSON.stringify({ version: RELEASE_VERSION, publishedAt: new Date(Date.now() - 60_000).toISOString() }),
  )
  form.append('file', new Blob([bytes], { type: 'application/gzip' }), `starter-kit-${RELEASE_VERSION}.tar.gz`)
  await api('/api/releases', { authorization: adminJwt, form })
}

/** A post the server imported from the shipped MDX, readable in full by anyone. */
const blogPost = async (): Promise<string> => {
  const { docs } = await api<{ docs: { slug: string; requiredFeature?: string | null }[] }>(
    '/api/posts?limit=100&depth=0&sort=slug',
  )
  const post = docs.find((candidate) => !candidate.requiredFeature) ?? docs[0]
  if (!post) throw new Error('no published post: the server did not import src/content/blog')
  return `/blog/${post.slug}`
}

/**
 * `customers` buy Ultimate and make the service's maximum of API keys each; `licenseKeys` licenses in
 * all (theirs and manual ones) are there to validate.
 */
export const seed = async (options: { customers: number; licenseKeys: number }): Promise<Seeded> => {
  const admin = { email: 'bench-admin@example.test', password: PASSWORD }
  await api('/api/users/first-register', { json: admin })
  const adminJwt = await signIn(admin.email, clientAddress(10_000))
  const customers = await inParallel(
    Array.from({ length: options.customers }, (_, index) => index),
    2,
    (index) => customerWithPurchase(adminJwt, index),
  )
  const apiKeys = (await inParallel(customers, 4, createApiKeys)).flat()
  const { docs: bought } = await api<{ docs: { key: string }[] }>(`/api/licenses?depth=0&limit=${options.customers}`, {
    authorization: adminJwt,
  })
  const granted = await grantLicenses(adminJwt, customers, Math.max(0, options.licenseKeys - bought.length))
  await publishRelease(adminJwt)
  return {
    customerJwt: (customers[0] as Customer).jwt,
    apiKeys,
    licenseKeys: [...bought.map((license) => license.key), ...granted],
    blogPath: await blogPost(),
  }
}
