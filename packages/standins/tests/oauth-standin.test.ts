import crypto from 'node:crypto'

import { createRemoteJWKSet, jwtVerify } from 'jose'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import {
  DEFAULT_ACCOUNTS,
  startOAuthStandIn,
  type OAuthClientRegistration,
  type OAuthProvider,
  type OAuthStandIn,
} from '../src/oauth'

const GITHUB: OAuthClientRegistration = {
  clientId: 'Iv1.standin-github',
  clientSecret: 'github-secret',
  redirectUris: ['http://localhost:3000/auth/github/callback'],
}
const GOOGLE: OAuthClientRegistration = {
  clientId: '1234-standin.apps.googleusercontent.com',
  clientSecret: 'GOCSPX-google-secret',
  redirectUris: ['http://localhost:3000/auth/google/callback'],
}
const CLIENTS: Record<OAuthProvider, OAuthClientRegistration> = { github: GITHUB, google: GOOGLE }
const SCOPES: Record<OAuthProvider, string> = { github: 'read:user user:email', google: 'openid email profile' }
const MINUTE_MS = 60 * 1000

let standIn: OAuthStandIn
let now: Date

beforeEach(async () => {
  now = new Date('2025-03-01T12:00:00Z')
  standIn = await startOAuthStandIn({ github: GITHUB, google: GOOGLE, now: () => now })
})

afterEach(async () => {
  await standIn.close()
})

const randomValue = (): string => crypto.randomBytes(32).toString('base64url')

const s256 = (verifier: string): string => crypto.createHash('sha256').update(verifier).digest('base64url')

type ClientRequest = { verifier: string; state: string; nonce: string; url: string }

/** An authorization URL as an OAuth client builds it, with its PKCE verifier, state and nonce. */
const authorizationRequest = (
  provider: OAuthProvider,
  overrides: Record<string, string | undefined> = {},
): ClientRequest => {
  const verifier = randomValue()
  const state = randomValue()
  const nonce = randomValue()
  const url = new URL(standIn.endpoints[provider].authorize)
  const params: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: CLIENTS[provider].clientId,
    redirect_uri: CLIENTS[provider].redirectUris[0],
    state,
    scope: SCOPES[provider],
    code_challenge_method: 'S256',
    code_challenge: s256(verifier),
    nonce,
    ...overrides,
  }
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value)
  return { verifier, state, nonce, url: url.toString() }
}

/** The code from the redirect back to the service after approving. */
const approvedCode = async (provider: OAuthProvider, request: ClientRequest): Promise<string> => {
  const redirect = new URL(await standIn.approve(request.url))
  const code = redirect.searchParams.get('code')
  if (code === null) throw new Error(`no code in ${redirect}`)
  return code
}

const basic = (clientId: string, secret: string): string =>
  `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`

/** The token request arctic sends: form body, Basic client authentication, `Accept: application/json`. */
const exchange = (
  provider: OAuthProvider,
  fields: Record<string, string>,
  headers: Record<string, string> = {
    authorization: basic(CLIENTS[provider].clientId, CLIENTS[provider].clientSecret),
  },
) =>
  fetch(standIn.endpoints[provider].token, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
    body: new URLSearchParams(fields),
  })

const codeGrant = (provider: OAuthProvider, code: string, verifier: string) => ({
  grant_type: 'authorization_code',
  code,
  redirect_uri: CLIENTS[provider].redirectUris[0] ?? '',
  code_verifier: verifier,
})

const signIn = async (provider: OAuthProvider): Promise<{ request: ClientRequest; code: string }> => {
  const request = authorizationRequest(provider)
  return { request, code: await approvedCode(provider, request) }
}

const accessTokenFor = async (provider: OAuthProvider): Promise<string> => {
  const { request, code } = await signIn(provider)
  const response = await exchange(provider, codeGrant(provider, code, request.verifier))
  const body = (await response.json()) as { access_token: string }
  return body.access_token
}

const bearerGet = (url: string, authorization: string) => fetch(url, { headers: { authorization } })

/** Verifies an ID token's RS256 signature (jose) against the JWKS the discovery document points to. */
const verifiedClaims = async (idToken: string): Promise<Record<string, unknown>> => {
  const discovery = (await (await fetch(standIn.endpoints.google.discovery)).json()) as { jwks_uri: string }
  const { payload, protectedHeader } = await jwtVerify(idToken, createRemoteJWKSet(new URL(discovery.jwks_uri)), {
    algorithms: ['RS256'],
    currentDate: now,
  })
  expect(protectedHeader).toMatchObject({ alg: 'RS256', typ: 'JWT' })
  return payload
}

/** The hidden fields and action of the consent page's form, as a browser would submit them. */
const consentForm = (html: string): { action: string; fields: URLSearchParams } => {
  const unescape = (value: string) =>
    value
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&')
  const action = /<form method="post" action="([^"]+)">/.exec(html)?.[1]
  if (action === undefined) throw new Error('no form on the consent page')
  const fields = new URLSearchParams()
  for (const [, name = '', value = ''] of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields.append(unescape(name), unescape(value))
  }
  return { action: new URL(unescape(action), standIn.url).toString(), fields }
}

describe('GitHub sign-in', () => {
  it('approves, exchanges the code for a token and serves the user and their emails', async () => {
    const request = authorizationRequest('github')
    const redirect = new URL(await standIn.approve(request.url))
    expect(`${redirect.origin}${redirect.pathname}`).toBe(GITHUB.redirectUris[0])
    expect(redirect.searchParams.get('state')).toBe(request.state)
    const code = redirect.searchParams.get('code') ?? ''
    expect(code).toMatch(/^[0-9a-f]{20}$/)

    const response = await exchange('github', codeGrant('github', code, request.verifier))
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const tokens = (await response.json()) as Record<string, string>
    expect(tokens).toEqual({
      access_token: expect.stringMatching(/^gho_/),
      token_type: 'bearer',
      scope: 'read:user,user:email',
    })

    const user = await bearerGet(standIn.endpoints.github.userApi, `Bearer ${tokens.access_token}`)
    expect(user.status).toBe(200)
    expect(user.headers.get('x-oauth-scopes')).toBe('read:user, user:email')
    expect(await user.json()).toMatchObject({
      id: 5830041,
      login: DEFAULT_ACCOUNTS.github.login,
      name: DEFAULT_ACCOUNTS.github.name,
      email: DEFAULT_ACCOUNTS.github.email,
    })

    const emails = await bearerGet(standIn.endpoints.github.emailsApi, `token ${tokens.access_token}`)
    expect(emails.status).toBe(200)
    expect(await emails.json()).toEqual([
      { email: DEFAULT_ACCOUNTS.github.email, primary: true, verified: true, visibility: 'public' },
    ])
  })

  it('shows an unverified address only in the emails list, as unverified', async () => {
    standIn.setAccount('github', { id: '77', email: 'new.user@example.com', emailVerified: false })
    const token = await accessTokenFor('github')

    const user = await (await bearerGet(standIn.endpoints.github.userApi, `Bearer ${token}`)).json()
    expect(user).toMatchObject({ id: 77, login: 'new-user', name: null, email: null })
    const emails = await (await bearerGet(standIn.endpoints.github.emailsApi, `Bearer ${token}`)).json()
    expect(emails).toEqual([{ email: 'new.user@example.com', primary: true, verified: false, visibility: 'private' }])
  })

  it('accepts the client secret in the body and answers form-encoded unless asked for JSON', async () => {
    const { request, code } = await signIn('github')
    const response = await fetch(standIn.endpoints.github.token, {
      method: 'POST',
      body: new URLSearchParams({
        client_id: GITHUB.clientId,
        client_secret: GITHUB.clientSecret,
        code,
        code_verifier: request.verifier,
      }),
    })

    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^application\/x-www-form-urlencoded/)
    const answer = new URLSearchParams(await response.text())
    expect(answer.get('access_token')).toMatch(/^gho_/)
    expect(answer.get('token_type')).toBe('bearer')
  })

  it('answers a replayed code, a wrong verifier or an expired code with 200 and bad_verification_code', async () => {
    const first = await signIn('github')
    expect((await exchange('github', codeGrant('github', first.code, first.request.verifier))).status).toBe(200)
    const replayed = await exchange('github', codeGrant('github', first.code, first.request.verifier))

    const second = await signIn('github')
    const wrongVerifier = await exchange('github', codeGrant('github', second.code, randomValue()))

    const third = await signIn('github')
    now = new Date(now.getTime() + 11 * MINUTE_MS)
    const expired = await exchange('github', codeGrant('github', third.code, third.request.verifier))

    for (const response of [replayed, wrongVerifier, expired]) {
      expect(response.status).toBe(200)
      expect(await response.json()).toMatchObject({
        error: 'bad_verification_code',
        error_description: 'The code passed is incorrect or expired.',
      })
    }
  })

  it('answers a different redirect_uri with redirect_uri_mismatch', async () => {
    const { request, code } = await signIn('github')
    const response = await exchange('github', {
      ...codeGrant('github', code, request.verifier),
      redirect_uri: 'http://localhost:3000/elsewhere',
    })

    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ error: 'redirect_uri_mismatch' })
  })

  it('answers a wrong client secret with 401 invalid_client', async () => {
    const { request, code } = await signIn('github')
    const response = await exchange('github', codeGrant('github', code, request.verifier), {
      authorization: basic(GITHUB.clientId, 'not-the-secret'),
    })

    expect(response.status).toBe(401)
    expect(await response.json()).toMatchObject({ error: 'invalid_client' })
  })

  it('answers the API without a valid token with 401 Bad credentials', async () => {
    const googleToken = await accessTokenFor('google')
    for (const authorization of ['', 'Bearer gho_unknown', `Bearer ${googleToken}`]) {
      const response = await bearerGet(standIn.endpoints.github.userApi, authorization)
      expect(response.status).toBe(401)
      expect(await response.json()).toMatchObject({ message: 'Bad credentials' })
    }
  })

  it('hides the emails from a token without the user:email scope', async () => {
    const request = authorizationRequest('github', { scope: 'read:user' })
    const code = await approvedCode('github', request)
    const tokens = (await (await exchange('github', codeGrant('github', code, request.verifier))).json()) as {
      access_token: string
    }

    const emails = await bearerGet(standIn.endpoints.github.emailsApi, `Bearer ${tokens.access_token}`)
    expect(emails.status).toBe(404)
  })
})

describe('Google sign-in', () => {
  it('publishes its OpenID configuration', async () => {
    const response = await fetch(standIn.endpoints.google.discovery)

    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({
      issuer: `${standIn.url}/google`,
      authorization_endpoint: standIn.endpoints.google.authorize,
      token_endpoint: standIn.endpoints.google.token,
      jwks_uri: standIn.endpoints.google.jwks,
      userinfo_endpoint: standIn.endpoints.google.userinfo,
      id_token_signing_alg_values_supported: ['RS256'],
    })
  })

  it('exchanges the code for an access token and a signed ID token carrying the nonce', async () => {
    const { request, code } = await signIn('google')
    const response = await exchange('google', codeGrant('google', code, request.verifier))

    expect(response.status).toBe(200)
    const tokens = (await response.json()) as Record<string, unknown>
    expect(tokens).toEqual({
      access_token: expect.stringMatching(/^ya29\./),
      expires_in: 3599,
      id_token: expect.any(String),
      scope: 'openid email profile',
      token_type: 'Bearer',
    })

    const claims = await verifiedClaims(String(tokens.id_token))
    const issuedAt = Math.floor(now.getTime() / 1000)
    expect(claims).toEqual({
      iss: standIn.endpoints.google.issuer,
      azp: GOOGLE.clientId,
      aud: GOOGLE.clientId,
      sub: DEFAULT_ACCOUNTS.google.id,
      email: DEFAULT_ACCOUNTS.google.email,
      email_verified: true,
      name: DEFAULT_ACCOUNTS.google.name,
      nonce: request.nonce,
      at_hash: crypto
        .createHash('sha256')
        .update(String(tokens.access_token))
        .digest()
        .subarray(0, 16)
        .toString('base64url'),
      iat: issuedAt,
      exp: issuedAt + 3600,
    })

    const userinfo = await bearerGet(standIn.endpoints.google.userinfo, `Bearer ${String(tokens.access_token)}`)
    expect(userinfo.status).toBe(200)
    expect(await userinfo.json()).toEqual({
      sub: DEFAULT_ACCOUNTS.google.id,
      email: DEFAULT_ACCOUNTS.google.email,
      email_verified: true,
      name: DEFAULT_ACCOUNTS.google.name,
    })
  })

  it('signs in as the account set when the code was approved', async () => {
    const before = await signIn('google')
    standIn.setAccount('google', { id: '42', email: 'grace@example.com', emailVerified: false, name: 'Grace' })
    const after = await signIn('google')

    const idTokenOf = async ({ request, code }: { request: ClientRequest; code: string }) => {
      const tokens = (await (await exchange('google', codeGrant('google', code, request.verifier))).json()) as {
        id_token: string
      }
      return verifiedClaims(tokens.id_token)
    }
    expect(await idTokenOf(before)).toMatchObject({ sub: DEFAULT_ACCOUNTS.google.id })
    expect(await idTokenOf(after)).toMatchObject({ sub: '42', email: 'grace@example.com', email_verified: false })
  })

  it('leaves the email out without the email scope', async () => {
    const request = authorizationRequest('google', { scope: 'openid' })
    const code = await approvedCode('google', request)
    const tokens = (await (await exchange('google', codeGrant('google', code, request.verifier))).json()) as {
      id_token: string
    }

    const claims = await verifiedClaims(tokens.id_token)
    expect(claims).not.toHaveProperty('email')
    expect(claims).not.toHaveProperty('name')
  })

  it('refuses a replayed code with invalid_grant and revokes the token it was exchanged for', async () => {
    const { request, code } = await signIn('google')
    const first = (await (await exchange('google', codeGrant('google', code, request.verifier))).json()) as {
      access_token: string
    }

    const replayed = await exchange('google', codeGrant('google', code, request.verifier))
    expect(replayed.status).toBe(400)
    expect(await replayed.json()).toMatchObject({ error: 'invalid_grant' })
    expect((await bearerGet(standIn.endpoints.google.userinfo, `Bearer ${first.access_token}`)).status).toBe(401)
  })

  it('refuses a wrong verifier, a different redirect_uri and an expired code with invalid_grant', async () => {
    const first = await signIn('google')
    const wrongVerifier = await exchange('google', codeGrant('google', first.code, randomValue()))

    const second = await signIn('google')
    const wrongRedirect = await exchange('google', {
      ...codeGrant('google', second.code, second.request.verifier),
      redirect_uri: 'http://localhost:3000/elsewhere',
    })

    const third = await signIn('google')
    now = new Date(now.getTime() + 11 * MINUTE_MS)
    const expired = await exchange('google', codeGrant('google', third.code, third.request.verifier))

    for (const response of [wrongVerifier, wrongRedirect, expired]) {
      expect(response.status).toBe(400)
      expect(await response.json()).toMatchObject({ error: 'invalid_grant' })
    }
  })

  it('uses a code up on a failed attempt, so the right verifier cannot follow a wrong one', async () => {
    const { request, code } = await signIn('google')
    await exchange('google', codeGrant('google', code, randomValue()))

    const retried = await exchange('google', codeGrant('google', code, request.verifier))
    expect(retried.status).toBe(400)
  })

  it('answers wrong client credentials with 401 invalid_client, whether in Basic or the body', async () => {
    const { request, code } = await signIn('google')
    const grant = codeGrant('google', code, request.verifier)

    const inBasic = await exchange('google', grant, { authorization: basic(GOOGLE.clientId, 'wrong') })
    expect(inBasic.status).toBe(401)
    expect(inBasic.headers.get('www-authenticate')).toMatch(/^Basic/)
    expect(await inBasic.json()).toMatchObject({ error: 'invalid_client' })

    const inBody = await exchange('google', { ...grant, client_id: GOOGLE.clientId, client_secret: 'wrong' }, {})
    expect(inBody.status).toBe(401)

    // A wrong secret does not use the code up.
    const right = await exchange(
      'google',
      { ...grant, client_id: GOOGLE.clientId, client_secret: GOOGLE.clientSecret },
      {},
    )
    expect(right.status).toBe(200)
  })

  it('expires access tokens after an hour', async () => {
    const token = await accessTokenFor('google')
    now = new Date(now.getTime() + 61 * MINUTE_MS)

    const userinfo = await bearerGet(standIn.endpoints.google.userinfo, `Bearer ${token}`)
    expect(userinfo.status).toBe(401)
    expect(userinfo.headers.get('www-authenticate')).toMatch(/error="invalid_token"/)
  })

  it('rejects an authorization request without a nonce or the openid scope', async () => {
    await expect(standIn.approve(authorizationRequest('google', { nonce: undefined }).url)).rejects.toThrow(/nonce/)
    await expect(standIn.approve(authorizationRequest('google', { scope: 'email' }).url)).rejects.toThrow(/openid/)
  })
})

describe('the authorization request', () => {
  it('answers an unregistered redirect_uri with a 400 page and never redirects to it', async () => {
    const request = authorizationRequest('github', { redirect_uri: 'https://attacker.example/callback' })

    const response = await fetch(request.url, { redirect: 'manual' })
    expect(response.status).toBe(400)
    expect(response.headers.get('location')).toBeNull()
    expect(response.headers.get('content-type')).toMatch(/^text\/html/)
    expect(await response.text()).toContain('is not registered')
    await expect(standIn.approve(request.url)).rejects.toThrow(/not registered/)
    expect(standIn.state.codes.size).toBe(0)
  })

  it('answers an unknown client_id with a 400 page', async () => {
    const request = authorizationRequest('google', { client_id: 'someone-else' })

    const response = await fetch(request.url, { redirect: 'manual' })
    expect(response.status).toBe(400)
    await expect(standIn.approve(request.url)).rejects.toThrow(/Unknown client_id/)
  })

  it('insists on PKCE with S256', async () => {
    const plain = authorizationRequest('github', { code_challenge_method: 'plain' })
    await expect(standIn.approve(plain.url)).rejects.toThrow(/S256/)
    const hex = authorizationRequest('github', { code_challenge: crypto.randomBytes(32).toString('hex') })
    await expect(standIn.approve(hex.url)).rejects.toThrow(/code_challenge/)
    const missing = authorizationRequest('github', { code_challenge: undefined })
    await expect(standIn.approve(missing.url)).rejects.toThrow(/code_challenge/)
  })

  it('redirects a denial with error=access_denied and the state', async () => {
    for (const provider of ['github', 'google'] as const) {
      const request = authorizationRequest(provider)
      const redirect = new URL(await standIn.approve(request.url, { deny: true }))

      expect(`${redirect.origin}${redirect.pathname}`).toBe(CLIENTS[provider].redirectUris[0])
      expect(redirect.searchParams.get('error')).toBe('access_denied')
      expect(redirect.searchParams.get('state')).toBe(request.state)
      expect(redirect.searchParams.has('code')).toBe(false)
    }
  })

  it('shows a consent page whose Approve button redirects with a code and the exact state', async () => {
    const request = authorizationRequest('google', { state: 'a&b="<c>" d+e/f' })

    const page = await fetch(request.url)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    const html = await page.text()
    expect(html).toContain(DEFAULT_ACCOUNTS.google.email)
    expect(html).toMatch(/<button type="submit" name="decision" value="approve">Approve<\/button>/)
    expect(html).toMatch(/<button type="submit" name="decision" value="deny">Deny<\/button>/)

    const { action, fields } = consentForm(html)
    fields.set('decision', 'approve')
    const approved = await fetch(action, { method: 'POST', body: fields, redirect: 'manual' })
    expect(approved.status).toBe(302)
    const redirect = new URL(approved.headers.get('location') ?? '')
    expect(`${redirect.origin}${redirect.pathname}`).toBe(GOOGLE.redirectUris[0])
    expect(redirect.searchParams.get('state')).toBe('a&b="<c>" d+e/f')

    const code = redirect.searchParams.get('code') ?? ''
    const tokens = await exchange('google', codeGrant('google', code, request.verifier))
    expect(tokens.status).toBe(200)
  })

  it('redirects the Deny button with error=access_denied', async () => {
    const request = authorizationRequest('github')
    const { action, fields } = consentForm(await (await fetch(request.url)).text())
    fields.set('decision', 'deny')

    const denied = await fetch(action, { method: 'POST', body: fields, redirect: 'manual' })
    expect(denied.status).toBe(302)
    const redirect = new URL(denied.headers.get('location') ?? '')
    expect(redirect.searchParams.get('error')).toBe('access_denied')
    expect(redirect.searchParams.get('state')).toBe(request.state)
  })

  it('records the requests it answers', async () => {
    await accessTokenFor('github')
    await fetch(`${standIn.url}/nowhere`)

    expect(standIn.state.requests).toEqual([
      { method: 'POST', path: '/github/login/oauth/access_token' },
      { method: 'GET', path: '/nowhere' },
    ])
  })
})
