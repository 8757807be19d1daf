import http from 'node:http'
import type { AddressInfo } from 'node:net'

import { exportJWK, generateKeyPair, type KeyLike, SignJWT } from 'jose'

import type { PublicJwk } from '../src/index'

/**
 * The service's four license endpoints over real HTTP, answering as it does (docs/LICENSING.md and
 * docs/TEAMS.md), with a signing key the test can rotate and a mode that makes it misbehave: garbage,
 * an HTML page, a 500, a 429, a hang, or an answer too large. The client's happy paths also run against
 * the real service (tests/int/license-client.test.ts); this double is for what the service never does.
 */
type Misbehaviour = 'garbage' | 'html' | 'error' | 'rate-limited' | 'hang' | 'huge' | 'forged' | null

export type SigningKey = { privateKey: KeyLike; kid: string; jwk: PublicJwk }

export const newSigningKey = async (kid: string): Promise<SigningKey> => {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true })
  return { privateKey, kid, jwk: { ...(await exportJWK(publicKey)), kty: 'OKP', kid, alg: 'EdDSA', use: 'sig' } }
}

export type ServiceDouble = {
  url: string
  /** The first signs; all are published. */
  keys: SigningKey[]
  /** What validate answers for a license: VALID (a certificate) or a code. */
  verdicts: Map<string, string>
  misbehave: Misbehaviour
  /** Seconds a certificate lives, and the issuer it names. */
  ttlSeconds: number
  issuer: string
  /** Requests seen, by path. */
  requests: string[]
  activations: Map<number, { key: string; fingerprint: string }>
  /** The clock the double signs with (seconds). */
  clock: () => number
  close: () => Promise<void>
}

export const startServiceDouble = async (keys: SigningKey[]): Promise<ServiceDouble> => {
  const hanging = new Set<http.ServerResponse>()
  const double: ServiceDouble = {
    url: '',
    keys,
    verdicts: new Map(),
    misbehave: null,
    ttlSeconds: 14 * 24 * 3600,
    issuer: '',
    requests: [],
    activations: new Map(),
    clock: () => Math.floor(Date.now() / 1000),
    close: () => Promise.resolve(),
  }
  let nextActivation = 1

  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers })
    res.end(JSON.stringify(body))
  }
  const error = (res: http.ServerResponse, status: number, code: string, extra: Record<string, unknown> = {}) =>
    json(res, status, { errors: [{ ...extra, code, message: `${code} (double)` }] })

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      void (async () => {
        const path = req.url ?? ''
        double.requests.push(`${req.method} ${path}`)
        const body = (chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : {}) as Record<string, unknown>
        if (path === '/api/licenses/public-key')
          return json(
            res,
            200,
            { keys: double.keys.map((key) => key.jwk) },
            { 'cache-control': 'public, max-age=3600' },
          )
        if (path === '/api/licenses/validate') {
          switch (double.misbehave) {
            case 'garbage':
              res.writeHead(200, { 'content-type': 'application/json' })
              return res.end('{"valid": tru')
            case 'html':
              res.writeHead(200, { 'content-type': 'text/html' })
              return res.end('<!doctype html><title>Maintenance</title>')
            case 'error':
              return error(res, 500, 'internal_error')
            case 'rate-limited':
              return error(res, 429, 'rate_limited')
            case 'hang':
              hanging.add(res)
              return
            case 'huge':
              res.writeHead(200, { 'content-type': 'application/json' })
              return res.end(`{"valid":true,"code":"VALID","padding":"${'x'.repeat(200_000)}"}`)
            default:
          }
          const key = String(body.key)
          const verdict = double.verdicts.get(key) ?? 'NOT_FOUND'
          if (verdict !== 'VALID') return json(res, 200, { valid: false, code: verdict, certificate: null })
          const [signer] = double.keys
          const iat = double.clock()
          const certificate = await new SignJWT({
            license: key,
            plan: 'standard',
            features: ['basic', 'templates'],
            ...(typeof body.fingerprint === 'string' ? { fpr: body.fingerprint } : {}),
            upd: { policy: 'major', major: 2 },
          })
            .setProtectedHeader({ alg: 'EdDSA', kid: signer!.kid, typ: 'JWT' })
            .setIssuer(double.issuer)
            .setIssuedAt(iat)
            .setExpirationTime(iat + double.ttlSeconds)
            .sign(double.misbehave === 'forged' ? (await newSigningKey(signer!.kid)).privateKey : signer!.privateKey)
          return json(res, 200, { valid: true, code: 'VALID', plan: 'standard', certificate })
        }
        if (path === '/api/licenses/activate') {
          if (double.verdicts.get(String(body.key)) !== 'VALID') return error(res, 404, 'license_not_found')
          const live = [...double.activations.values()].filter((a) => a.key === body.key)
          const same = [...double.activations.entries()].find(
            ([, a]) => a.key === body.key && a.fingerprint === body.fingerprint,
          )
          if (same) return json(res, 200, activationOf(same[0], same[1], live.length))
          if (live.length >= 2) return error(res, 409, 'activation_limit_reached', { used: 2, limit: 2 })
          const id = nextActivation++
          const activation = { key: String(body.key), fingerprint: String(body.fingerprint) }
          double.activations.set(id, activation)
          return json(res, 201, activationOf(id, activation, live.length + 1))
        }
        if (path === '/api/licenses/deactivate') {
          const id = Number(body.activationId)
          if (double.activations.get(id)?.key !== body.key) return error(res, 404, 'activation_not_found')
          if (body.key === 'KIT-LIMIT-ED')
            return json(res, 429, { errors: [{ code: 'deactivation_limit', message: 'x' }] }, { 'retry-after': '3600' })
          double.activations.delete(id)
          res.writeHead(204)
          return res.end()
        }
        return error(res, 404, 'not_found')
      })()
    })
  })
  const activationOf = (id: number, activation: { fingerprint: string }, used: number) => ({
    id,
    fingerprint: activation.fingerprint,
    label: null,
    createdAt: new Date().toISOString(),
    lastValidatedAt: null,
    activations: { used, limit: 2 },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  double.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  double.issuer = double.url
  double.close = () =>
    new Promise((resolve) => {
      for (const res of hanging) res.destroy()
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return double
}
