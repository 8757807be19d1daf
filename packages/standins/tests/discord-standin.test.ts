import { DiscordAPIError, HTTPError, RateLimitError, REST, RequestMethod } from '@discordjs/rest'
import {
  CodeChallengeMethod,
  generateCodeVerifier,
  generateState,
  OAuth2Client,
  OAuth2RequestError,
  type OAuth2Tokens,
} from 'arctic'
import { RESTJSONErrorCodes, Routes, type APIGuildMember, type APIRole, type APIUser } from 'discord-api-types/v10'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { DEFAULT_ROLES, DEFAULT_USERS, startDiscordStandIn, type DiscordStandIn } from '../src/discord'

const BOT_TOKEN = 'MTE4NzQ2NTMwMjE1MDg1MjYwOA.Gstand.in-bot-token-0123456789abcdef'
const CLIENT_ID = '1187465302150852608'
const CLIENT_SECRET = 'standin-client-secret-0123456789'
const REDIRECT_URI = 'http://localhost:3000/api/discord/callback'
const SCOPES = ['identify', 'guilds.join']
const BUYER = DEFAULT_USERS[0]?.id ?? ''
const FRIEND = DEFAULT_USERS[1]?.id ?? ''
const BUYERS_ROLE = DEFAULT_ROLES[0]?.id ?? ''
const ULTIMATE_ROLE = DEFAULT_ROLES[1]?.id ?? ''
const MINUTE_MS = 60 * 1000
const DAY_MS = 24 * 60 * MINUTE_MS

let standIn: DiscordStandIn
let now: Date
let rest: REST

/** The real client as the service builds it: no retries, and a rate limit surfaces as a RateLimitError. */
const restWith = (token: string) =>
  new REST({ version: '10', api: `${standIn.url}/api`, retries: 0, rejectOnRateLimit: () => true }).setToken(token)

beforeEach(async () => {
  now = new Date('2025-03-01T12:00:00Z')
  standIn = await startDiscordStandIn({
    botToken: BOT_TOKEN,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    appName: 'Kit Licensing',
    redirectUris: [REDIRECT_URI],
    now: () => now,
  })
  rest = restWith(BOT_TOKEN)
})

afterEach(async () => {
  await standIn.close()
})

const oauthClient = (redirectUri = REDIRECT_URI, secret = CLIENT_SECRET) =>
  new OAuth2Client(CLIENT_ID, secret, redirectUri)

const tokenEndpoint = () => `${standIn.apiUrl}/oauth2/token`

type ClientRequest = { url: string; state: string; verifier: string }

/** The authorization URL the service redirects the browser to, as arctic builds it (PKCE S256). */
const authorizationRequest = (scopes = SCOPES, redirectUri = REDIRECT_URI): ClientRequest => {
  const state = generateState()
  const verifier = generateCodeVerifier()
  const url = oauthClient(redirectUri).createAuthorizationURLWithPKCE(
    standIn.authorizeUrl,
    state,
    CodeChallengeMethod.S256,
    verifier,
    scopes,
  )
  return { url: url.toString(), state, verifier }
}

const codeIn = (location: string): string => new URL(location).searchParams.get('code') ?? 'no code'

/** The user authorizes on the consent page and the service exchanges the code for tokens. */
const signIn = async (userId: string, scopes = SCOPES): Promise<OAuth2Tokens> => {
  const request = authorizationRequest(scopes)
  const code = codeIn(await standIn.approve(request.url, userId))
  return oauthClient().validateAuthorizationCode(tokenEndpoint(), code, request.verifier)
}

const me = (accessToken: string) =>
  rest.get(Routes.user('@me'), { auth: false, headers: { Authorization: `Bearer ${accessToken}` } }) as Promise<APIUser>

/** "Add Guild Member" as the bot calls it; the raw response, so 201 and 204 can be told apart. */
const addToGuild = (userId: string, accessToken: string, roles?: string[]) =>
  rest.queueRequest({
    method: RequestMethod.Put,
    fullRoute: Routes.guildMember(standIn.guildId, userId),
    body: { access_token: accessToken, ...(roles ? { roles } : {}) },
  })

const caught = async (promise: Promise<unknown>): Promise<unknown> => {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection')
}

/** What @discordjs/rest surfaces for a Discord error body: the HTTP status and Discord's JSON code. */
const discordError = (status: number, code: number, message: string) =>
  expect.objectContaining({ constructor: DiscordAPIError, status, code, message, rawError: { message, code } })

describe('the join flow', () => {
  it('signs a user in, adds them to the guild, and gives and takes a role', async () => {
    const request = authorizationRequest()
    const location = new URL(await standIn.approve(request.url, BUYER))
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI)
    expect(location.searchParams.get('state')).toBe(request.state)
    expect(location.searchParams.get('code')).toMatch(/^[A-Za-z0-9]{30}$/)

    const tokens = await oauthClient().validateAuthorizationCode(
      tokenEndpoint(),
      codeIn(location.toString()),
      request.verifier,
    )
    expect(tokens.tokenType()).toBe('Bearer')
    expect(tokens.accessToken()).toMatch(/^[A-Za-z0-9]{30}$/)
    expect(tokens.refreshToken()).toMatch(/^[A-Za-z0-9]{30}$/)
    expect(tokens.accessTokenExpiresInSeconds()).toBe(604_800)
    expect(tokens.scopes()).toEqual(['identify', 'guilds.join'])

    expect(await me(tokens.accessToken())).toEqual({
      id: BUYER,
      username: 'discord-buyer',
      global_name: 'Discord Buyer',
      avatar: null,
      discriminator: '0',
      public_flags: 0,
      flags: 0,
      banner: null,
      accent_color: null,
      avatar_decoration_data: null,
      mfa_enabled: false,
      locale: 'en-US',
      premium_type: 0,
    })

    const added = await addToGuild(BUYER, tokens.accessToken(), [BUYERS_ROLE])
    expect(added.status).toBe(201)
    const member = (await added.json()) as APIGuildMember
    expect(member).toEqual({
      user: expect.objectContaining({ id: BUYER, username: 'discord-buyer', discriminator: '0' }),
      nick: null,
      avatar: null,
      banner: null,
      roles: [BUYERS_ROLE],
      joined_at: '2025-03-01T12:00:00.000000+00:00',
      premium_since: null,
      deaf: false,
      mute: false,
      flags: 0,
      pending: false,
      communication_disabled_until: null,
    })
    expect(standIn.member(BUYER)).toEqual({ roles: [BUYERS_ROLE], joinedAt: '2025-03-01T12:00:00.000Z' })

    // Already a member: 204 with no body, and the roles in the body are ignored.
    const again = await addToGuild(BUYER, tokens.accessToken(), [ULTIMATE_ROLE])
    expect(again.status).toBe(204)
    expect(await again.text()).toBe('')
    expect(standIn.member(BUYER)?.roles).toEqual([BUYERS_ROLE])

    const roleRoute = Routes.guildMemberRole(standIn.guildId, BUYER, ULTIMATE_ROLE)
    await rest.put(roleRoute, { reason: 'Plan benefit: Ultimate (licence #42)' })
    await rest.put(roleRoute)
    expect(standIn.member(BUYER)?.roles).toEqual([BUYERS_ROLE, ULTIMATE_ROLE])
    const fetched = (await rest.get(Routes.guildMember(standIn.guildId, BUYER))) as APIGuildMember
    expect(fetched.roles).toEqual([BUYERS_ROLE, ULTIMATE_ROLE])

    await rest.delete(Routes.guildMemberRole(standIn.guildId, BUYER, BUYERS_ROLE), { reason: 'Refunded' })
    await rest.delete(Routes.guildMemberRole(standIn.guildId, BUYER, BUYERS_ROLE))
    expect(standIn.member(BUYER)?.roles).toEqual([ULTIMATE_ROLE])

    const roleRequests = standIn.requests.filter((recorded) => recorded.path.includes('/roles/'))
    expect(roleRequests).toEqual([
      {
        method: 'PUT',
        path: `/api/v10${roleRoute}`,
        authorization: 'bot',
        status: 204,
        auditLogReason: 'Plan benefit: Ultimate (licence #42)',
      },
      { method: 'PUT', path: `/api/v10${roleRoute}`, authorization: 'bot', status: 204 },
      {
        method: 'DELETE',
        path: `/api/v10${Routes.guildMemberRole(standIn.guildId, BUYER, BUYERS_ROLE)}`,
        authorization: 'bot',
        status: 204,
        auditLogReason: 'Refunded',
      },
      {
        method: 'DELETE',
        path: `/api/v10${Routes.guildMemberRole(standIn.guildId, BUYER, BUYERS_ROLE)}`,
        authorization: 'bot',
        status: 204,
      },
    ])
  })

  it('adds a member with no roles when the body names none', async () => {
    const tokens = await signIn(FRIEND)
    const added = await addToGuild(FRIEND, tokens.accessToken())
    expect(added.status).toBe(201)
    expect(standIn.member(FRIEND)?.roles).toEqual([])
  })
})

describe('the consent page', () => {
  /** The hidden fields of the page's form, and its choices, as a browser would submit them. */
  const formFields = (html: string): URLSearchParams => {
    const unescape = (value: string) =>
      value
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&')
    const fields = new URLSearchParams()
    for (const [, name = '', value = ''] of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
      fields.append(unescape(name), unescape(value))
    }
    return fields
  }

  const submit = (fields: URLSearchParams) =>
    fetch(standIn.authorizeUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: fields,
      redirect: 'manual',
    })

  it('renders the request and the users to sign in as, and its Authorize redirects with a code', async () => {
    const request = authorizationRequest()
    const page = await fetch(request.url)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    const html = await page.text()
    expect(html).toContain('Discord stand-in: nothing here reaches Discord.')
    expect(html).toContain('<h1>Authorize Kit Licensing</h1>')
    expect(html).toContain('Join servers for you')
    expect(html).toContain(`<option value="${BUYER}">Discord Buyer (@discord-buyer)</option>`)
    expect(html).toContain(`<option value="${FRIEND}">Discord Friend (@discord-friend)</option>`)
    expect(html).not.toContain('@stand-in-bot')
    expect(html).toContain('<form method="post" action="/oauth2/authorize">')

    const fields = formFields(html)
    expect(fields.get('state')).toBe(request.state)
    fields.set('user_id', FRIEND)
    fields.set('decision', 'authorize')
    const answer = await submit(fields)
    expect(answer.status).toBe(302)
    const location = answer.headers.get('location') ?? ''
    expect(location.startsWith(`${REDIRECT_URI}?code=`)).toBe(true)
    expect(new URL(location).searchParams.get('state')).toBe(request.state)

    const tokens = await oauthClient().validateAuthorizationCode(tokenEndpoint(), codeIn(location), request.verifier)
    expect((await me(tokens.accessToken())).username).toBe('discord-friend')
  })

  it('redirects Cancel, and `deny`, with access_denied and the state', async () => {
    const request = authorizationRequest()
    const fields = formFields(await (await fetch(request.url)).text())
    fields.set('user_id', BUYER)
    fields.set('decision', 'cancel')
    const answer = await submit(fields)
    expect(answer.status).toBe(302)
    const expected =
      `${REDIRECT_URI}?error=access_denied` +
      `&error_description=The+resource+owner+or+authorization+server+denied+the+request&state=${request.state}`
    expect(answer.headers.get('location')).toBe(expected)
    expect(await standIn.deny(request.url)).toBe(expected)
  })

  it('shows an error page, never a redirect, for a request Discord refuses', async () => {
    const valid = new URL(authorizationRequest().url)
    const variants: Array<[string, string, string]> = [
      ['client_id', '1000000000000000001', 'Unknown Application'],
      ['redirect_uri', 'http://localhost:3000/elsewhere', 'Invalid OAuth2 redirect_uri'],
      ['response_type', 'token', 'Invalid response_type'],
      ['scope', 'guilds.join', 'The scope must include identify.'],
      ['scope', 'identify bot.everything', 'Invalid scope: bot.everything.'],
      ['code_challenge_method', 'plain', 'code_challenge_method must be S256'],
    ]
    for (const [name, value, message] of variants) {
      const url = new URL(valid)
      url.searchParams.set(name, value)
      const page = await fetch(url, { redirect: 'manual' })
      expect(page.status).toBe(400)
      expect(page.headers.get('location')).toBeNull()
      const html = await page.text()
      expect(html).toContain(message)
      expect(html).toContain('Discord stand-in')
      await expect(standIn.approve(url.toString(), BUYER)).rejects.toThrow(message)
      await expect(standIn.deny(url.toString())).rejects.toThrow(message)
    }
    await expect(standIn.approve(valid.toString(), '1000000000000000002')).rejects.toThrow('can sign in')
    await expect(standIn.approve(valid.toString(), standIn.botUserId)).rejects.toThrow('can sign in')
  })

  it('accepts any http(s) redirect_uri while none is registered, and only those once one is', async () => {
    await standIn.close()
    standIn = await startDiscordStandIn({ botToken: BOT_TOKEN, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET })
    const anywhere = authorizationRequest(SCOPES, 'https://dev.example.test/callback')
    expect(await standIn.approve(anywhere.url, BUYER)).toMatch(/^https:\/\/dev\.example\.test\/callback\?code=/)
    const scheme = authorizationRequest(SCOPES, 'javascript:alert(1)')
    await expect(standIn.approve(scheme.url, BUYER)).rejects.toThrow('Invalid OAuth2 redirect_uri')

    standIn.registerRedirectUri(REDIRECT_URI)
    await expect(standIn.approve(anywhere.url, BUYER)).rejects.toThrow('Invalid OAuth2 redirect_uri')
    expect(await standIn.approve(authorizationRequest().url, BUYER)).toMatch(/^http:\/\/localhost:3000\//)
  })
})

describe('the token endpoint', () => {
  const oauthError = async (promise: Promise<unknown>) => {
    const error = await caught(promise)
    expect(error).toBeInstanceOf(OAuth2RequestError)
    return error as OAuth2RequestError
  }

  it('refuses a code used twice, and revokes the token the first use gave', async () => {
    const request = authorizationRequest()
    const code = codeIn(await standIn.approve(request.url, BUYER))
    const tokens = await oauthClient().validateAuthorizationCode(tokenEndpoint(), code, request.verifier)

    const error = await oauthError(oauthClient().validateAuthorizationCode(tokenEndpoint(), code, request.verifier))
    expect(error.code).toBe('invalid_grant')
    expect(error.description).toBe('Invalid "code" in request.')
    expect(await caught(me(tokens.accessToken()))).toEqual(discordError(401, 0, '401: Unauthorized'))
  })

  it('refuses a wrong verifier, and the code stays used', async () => {
    const request = authorizationRequest()
    const code = codeIn(await standIn.approve(request.url, BUYER))
    const wrong = await oauthError(
      oauthClient().validateAuthorizationCode(tokenEndpoint(), code, generateCodeVerifier()),
    )
    expect([wrong.code, wrong.description]).toEqual(['invalid_grant', 'Invalid "code" in request.'])
    const retried = await oauthError(oauthClient().validateAuthorizationCode(tokenEndpoint(), code, request.verifier))
    expect(retried.code).toBe('invalid_grant')
  })

  it('asks for the verifier when the request sent a challenge', async () => {
    const request = authorizationRequest()
    const code = codeIn(await standIn.approve(request.url, BUYER))
    const error = await oauthError(oauthClient().validateAuthorizationCode(tokenEndpoint(), code, null))
    expect([error.code, error.description]).toEqual(['invalid_request', 'Missing "code_verifier"'])
  })

  it('refuses a redirect_uri other than the authorization request’s', async () => {
    standIn.registerRedirectUri('http://localhost:3000/other')
    const request = authorizationRequest()
    const code = codeIn(await standIn.approve(request.url, BUYER))
    const error = await oauthError(
      oauthClient('http://localhost:3000/other').validateAuthorizationCode(tokenEndpoint(), code, request.verifier),
    )
    expect([error.code, error.description]).toEqual(['invalid_grant', 'Invalid "redirect_uri" in request.'])
  })

  it('refuses a code after ten minutes of the stand-in’s clock', async () => {
    const request = authorizationRequest()
    const code = codeIn(await standIn.approve(request.url, BUYER))
    now = new Date(now.getTime() + 10 * MINUTE_MS)
    const error = await oauthError(oauthClient().validateAuthorizationCode(tokenEndpoint(), code, request.verifier))
    expect(error.code).toBe('invalid_grant')
  })

  it('answers wrong client credentials with 401 invalid_client', async () => {
    const request = authorizationRequest()
    const code = codeIn(await standIn.approve(request.url, BUYER))
    const error = await oauthError(
      oauthClient(REDIRECT_URI, 'not-the-secret').validateAuthorizationCode(tokenEndpoint(), code, request.verifier),
    )
    expect(error.code).toBe('invalid_client')
    expect(standIn.requests.at(-1)).toEqual({
      method: 'POST',
      path: '/api/v10/oauth2/token',
      authorization: 'basic',
      status: 401,
    })

    const inBody = await fetch(tokenEndpoint(), {
      method: 'POST',
      body: new URLSearchParams({ client_id: CLIENT_ID, client_secret: 'wrong', grant_type: 'authorization_code' }),
    })
    expect(inBody.status).toBe(401)
    expect(await inBody.json()).toEqual({ error: 'invalid_client' })
  })

  it('takes the client credentials in the body, and answers an unknown grant type', async () => {
    const request = authorizationRequest()
    const code = codeIn(await standIn.approve(request.url, BUYER))
    const credentials = { client_id: CLIENT_ID, client_secret: CLIENT_SECRET }
    const unsupported = await fetch(tokenEndpoint(), {
      method: 'POST',
      body: new URLSearchParams({ ...credentials, grant_type: 'password' }),
    })
    expect(unsupported.status).toBe(400)
    expect(await unsupported.json()).toEqual({ error: 'unsupported_grant_type' })

    const exchanged = await fetch(tokenEndpoint(), {
      method: 'POST',
      body: new URLSearchParams({
        ...credentials,
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
        code_verifier: request.verifier,
      }),
    })
    expect(exchanged.status).toBe(200)
    expect(await exchanged.json()).toEqual({
      token_type: 'Bearer',
      access_token: expect.stringMatching(/^[A-Za-z0-9]{30}$/),
      expires_in: 604_800,
      refresh_token: expect.stringMatching(/^[A-Za-z0-9]{30}$/),
      scope: 'identify guilds.join',
    })
  })

  it('answers at the unversioned path arctic’s Discord provider uses', async () => {
    const request = authorizationRequest()
    const code = codeIn(await standIn.approve(request.url, FRIEND))
    const tokens = await oauthClient().validateAuthorizationCode(
      `${standIn.url}/api/oauth2/token`,
      code,
      request.verifier,
    )
    expect((await me(tokens.accessToken())).id).toBe(FRIEND)
  })

  it('revokes a token: @me and joining the guild refuse it', async () => {
    const tokens = await signIn(BUYER)
    await oauthClient().revokeToken(`${standIn.apiUrl}/oauth2/token/revoke`, tokens.accessToken())

    expect(await caught(me(tokens.accessToken()))).toEqual(discordError(401, 0, '401: Unauthorized'))
    expect(await caught(addToGuild(BUYER, tokens.accessToken()))).toEqual(
      discordError(403, RESTJSONErrorCodes.InvalidOAuth2AccessToken, 'Invalid OAuth2 access token'),
    )
    // Revoking the access token ended the authorization: its refresh token is gone too.
    const refreshed = await oauthError(oauthClient().refreshAccessToken(tokenEndpoint(), tokens.refreshToken(), []))
    expect(refreshed.code).toBe('invalid_grant')
    // An unknown token is revoked all the same (RFC 7009).
    await oauthClient().revokeToken(`${standIn.apiUrl}/oauth2/token/revoke`, 'not-a-token')
  })

  it('refreshes: the new token works, the old one no longer does', async () => {
    const tokens = await signIn(BUYER)
    const refreshed = await oauthClient().refreshAccessToken(tokenEndpoint(), tokens.refreshToken(), [])
    expect(refreshed.accessToken()).not.toBe(tokens.accessToken())
    expect((await me(refreshed.accessToken())).id).toBe(BUYER)
    expect(await caught(me(tokens.accessToken()))).toMatchObject({ status: 401 })
  })

  it('lets an access token expire after a week of the stand-in’s clock', async () => {
    const tokens = await signIn(BUYER)
    now = new Date(now.getTime() + 7 * DAY_MS - 1000)
    expect((await me(tokens.accessToken())).id).toBe(BUYER)
    now = new Date(now.getTime() + 1000)
    expect(await caught(me(tokens.accessToken()))).toMatchObject({ status: 401, code: 0 })
  })
})

describe('the bot’s refusals', () => {
  it('answers a wrong, rotated or missing bot token with 401', async () => {
    const error = await caught(restWith('not-the-bot-token').get(Routes.guildRoles(standIn.guildId)))
    expect(error).toEqual(discordError(401, 0, '401: Unauthorized'))

    standIn.setBotToken('rotated-token')
    expect(await caught(restWith(BOT_TOKEN).get(Routes.guildRoles(standIn.guildId)))).toMatchObject({ status: 401 })
    expect(await restWith('rotated-token').get(Routes.guildRoles(standIn.guildId))).toHaveLength(4)

    const tokens = await signIn(BUYER)
    const bearer = await caught(
      rest.get(Routes.guildRoles(standIn.guildId), {
        auth: false,
        headers: { Authorization: `Bearer ${tokens.accessToken()}` },
      }),
    )
    expect(bearer).toMatchObject({ status: 401, code: 0 })
    const none = await fetch(`${standIn.apiUrl}/guilds/${standIn.guildId}/roles`)
    expect(none.status).toBe(401)
    expect(await none.json()).toEqual({ message: '401: Unauthorized', code: 0 })
  })

  it('answers another guild with Unknown Guild', async () => {
    const error = await caught(rest.get(Routes.guildMember('1000000000000000003', BUYER)))
    expect(error).toEqual(discordError(404, RESTJSONErrorCodes.UnknownGuild, 'Unknown Guild'))
  })

  it('refuses to add a member with a token of someone else, without guilds.join, or for an unknown user', async () => {
    const friendTokens = await signIn(FRIEND)
    expect(await caught(addToGuild(BUYER, friendTokens.accessToken()))).toEqual(
      discordError(403, RESTJSONErrorCodes.InvalidOAuth2AccessToken, 'Invalid OAuth2 access token'),
    )
    const identifyOnly = await signIn(BUYER, ['identify'])
    expect(await caught(addToGuild(BUYER, identifyOnly.accessToken()))).toMatchObject({
      status: 403,
      code: RESTJSONErrorCodes.InvalidOAuth2AccessToken,
    })
    expect(await caught(addToGuild('1000000000000000004', friendTokens.accessToken()))).toEqual(
      discordError(404, RESTJSONErrorCodes.UnknownUser, 'Unknown User'),
    )
    expect(standIn.member(BUYER)).toBeNull()
  })

  it('refuses a role at or above the bot’s, and an unknown role, adding nobody', async () => {
    const tokens = await signIn(BUYER)
    const staff = standIn.addRole({ name: 'Staff', position: 10 })
    const admins = standIn.addRole({ name: 'Admins', position: 11 })
    for (const role of [staff, admins]) {
      expect(await caught(addToGuild(BUYER, tokens.accessToken(), [BUYERS_ROLE, role.id]))).toEqual(
        discordError(403, RESTJSONErrorCodes.MissingPermissions, 'Missing Permissions'),
      )
    }
    expect(await caught(addToGuild(BUYER, tokens.accessToken(), ['1000000000000000005']))).toEqual(
      discordError(404, RESTJSONErrorCodes.UnknownRole, 'Unknown Role'),
    )
    expect(standIn.member(BUYER)).toBeNull()
  })

  it('answers a body without access_token with Discord’s form error', async () => {
    const error = await caught(rest.put(Routes.guildMember(standIn.guildId, BUYER), { body: { roles: [] } }))
    expect(error).toMatchObject({
      status: 400,
      code: RESTJSONErrorCodes.InvalidFormBodyOrContentType,
      message: 'Invalid Form Body\naccess_token[BASE_TYPE_REQUIRED]: This field is required',
    })
  })

  it('answers an id that is not a snowflake with a form error', async () => {
    const error = await caught(rest.get(Routes.guildMember(standIn.guildId, 'discord-buyer')))
    expect(error).toMatchObject({
      status: 400,
      code: RESTJSONErrorCodes.InvalidFormBodyOrContentType,
      message: 'Invalid Form Body\nuser_id[NUMBER_TYPE_COERCE]: Value "discord-buyer" is not snowflake.',
    })
  })

  it('answers role changes on a non-member, an unknown role or one above the bot', async () => {
    const route = (userId: string, roleId: string) => Routes.guildMemberRole(standIn.guildId, userId, roleId)
    const unknownMember = discordError(404, RESTJSONErrorCodes.UnknownMember, 'Unknown Member')
    expect(await caught(rest.put(route(BUYER, BUYERS_ROLE)))).toEqual(unknownMember)
    expect(await caught(rest.delete(route(BUYER, BUYERS_ROLE)))).toEqual(unknownMember)
    expect(await caught(rest.get(Routes.guildMember(standIn.guildId, BUYER)))).toEqual(unknownMember)

    standIn.addMember(BUYER)
    expect(await caught(rest.put(route(BUYER, '1000000000000000006')))).toEqual(
      discordError(404, RESTJSONErrorCodes.UnknownRole, 'Unknown Role'),
    )
    const moderators = standIn.addRole({ name: 'Moderators', position: 12 })
    const missingPermissions = discordError(403, RESTJSONErrorCodes.MissingPermissions, 'Missing Permissions')
    expect(await caught(rest.put(route(BUYER, moderators.id)))).toEqual(missingPermissions)
    expect(await caught(rest.delete(route(BUYER, moderators.id)))).toEqual(missingPermissions)
    // The bot's own role is managed: nobody can hand it out.
    const botRole = standIn.member(standIn.botUserId)?.roles[0] ?? ''
    expect(await caught(rest.put(route(BUYER, botRole)))).toEqual(missingPermissions)
    expect(standIn.member(BUYER)?.roles).toEqual([])
  })

  it('kicks a member with 204, and answers a non-member with Unknown Member', async () => {
    standIn.addMember(FRIEND, [BUYERS_ROLE])
    await rest.delete(Routes.guildMember(standIn.guildId, FRIEND), { reason: 'Licence revoked' })
    expect(standIn.member(FRIEND)).toBeNull()
    expect(standIn.requests.at(-1)).toMatchObject({ status: 204, auditLogReason: 'Licence revoked' })
    expect(await caught(rest.delete(Routes.guildMember(standIn.guildId, FRIEND)))).toMatchObject({
      status: 404,
      code: RESTJSONErrorCodes.UnknownMember,
    })
  })

  it('answers unknown routes and malformed JSON as Discord does', async () => {
    const unknown = await fetch(`${standIn.apiUrl}/channels/1000000000000000007`, {
      headers: { Authorization: `Bot ${BOT_TOKEN}` },
    })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toEqual({ message: '404: Not Found', code: 0 })

    const malformed = await fetch(`${standIn.apiUrl}/guilds/${standIn.guildId}/members/${BUYER}`, {
      method: 'PUT',
      headers: { Authorization: `Bot ${BOT_TOKEN}`, 'content-type': 'application/json' },
      body: '{"access_token": ',
    })
    expect(malformed.status).toBe(400)
    expect(await malformed.json()).toEqual({ message: '400: Bad Request', code: 0 })
  })
})

describe('roles', () => {
  it('lists @everyone, the bot’s managed role and the guild’s roles', async () => {
    const roles = (await rest.get(Routes.guildRoles(standIn.guildId))) as APIRole[]
    expect(roles.map((role) => [role.name, role.position, role.managed])).toEqual([
      ['@everyone', 0, false],
      ['Buyers', 1, false],
      ['Ultimate', 2, false],
      ['Stand-in Bot', 10, true],
    ])
    expect(roles[0]?.id).toBe(standIn.guildId)
    expect(roles[3]?.tags).toEqual({ bot_id: CLIENT_ID })
    expect(roles[1]).toEqual({
      id: BUYERS_ROLE,
      name: 'Buyers',
      color: 0,
      colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
      hoist: false,
      icon: null,
      unicode_emoji: null,
      position: 1,
      permissions: '0',
      managed: false,
      mentionable: false,
      flags: 0,
    })
  })
})

describe('rate limits and injected failures', () => {
  const rolePath = () => `/api/v10${Routes.guildMemberRole(standIn.guildId, BUYER, BUYERS_ROLE)}`

  it('carries Discord’s rate-limit headers, whose remaining count never reaches 0 on its own', async () => {
    const remaining: number[] = []
    let bucket: string | null = null
    for (let index = 0; index < 12; index += 1) {
      const answer = await fetch(`${standIn.apiUrl}/guilds/${standIn.guildId}/roles`, {
        headers: { Authorization: `Bot ${BOT_TOKEN}` },
      })
      expect(answer.status).toBe(200)
      expect(answer.headers.get('x-ratelimit-limit')).toBe('10')
      expect(answer.headers.get('x-ratelimit-reset-after')).toBe('10.000')
      expect(answer.headers.get('x-ratelimit-reset')).toBe(((now.getTime() + 10_000) / 1000).toFixed(3))
      bucket ??= answer.headers.get('x-ratelimit-bucket')
      expect(answer.headers.get('x-ratelimit-bucket')).toBe(bucket)
      remaining.push(Number(answer.headers.get('x-ratelimit-remaining')))
    }
    expect(bucket).toMatch(/^[0-9a-f]{32}$/)
    expect(remaining).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 1, 1, 1])
    // The window follows the stand-in's clock.
    now = new Date(now.getTime() + 10_000)
    const later = await fetch(`${standIn.apiUrl}/guilds/${standIn.guildId}/roles`, {
      headers: { Authorization: `Bot ${BOT_TOKEN}` },
    })
    expect(later.headers.get('x-ratelimit-remaining')).toBe('9')
  })

  it('answers an injected 429 as Discord does, which @discordjs/rest surfaces as a RateLimitError', async () => {
    standIn.addMember(BUYER)
    standIn.failNext({ method: 'PUT', path: rolePath(), status: 429, retryAfter: 2.5 })

    const error = await caught(rest.put(Routes.guildMemberRole(standIn.guildId, BUYER, BUYERS_ROLE)))
    expect(error).toBeInstanceOf(RateLimitError)
    // Retry-After (3 s, rounded up from 2.5) in milliseconds, plus @discordjs/rest's default 50 ms offset.
    expect(error).toMatchObject({ retryAfter: 3_050, global: false, scope: 'user', method: 'PUT', limit: 10 })
    expect(standIn.member(BUYER)?.roles).toEqual([])

    standIn.failNext({ method: 'PUT', path: rolePath(), status: 429, retryAfter: 2.5 })
    const answer = await fetch(`${standIn.url}${rolePath()}`, {
      method: 'PUT',
      headers: { Authorization: `Bot ${BOT_TOKEN}` },
    })
    expect(answer.status).toBe(429)
    expect(await answer.json()).toEqual({ message: 'You are being rate limited.', retry_after: 2.5, global: false })
    expect(answer.headers.get('retry-after')).toBe('3')
    expect(answer.headers.get('x-ratelimit-remaining')).toBe('0')
    expect(answer.headers.get('x-ratelimit-reset-after')).toBe('2.500')
    expect(answer.headers.get('x-ratelimit-reset')).toBe(((now.getTime() + 2_500) / 1000).toFixed(3))
    expect(answer.headers.get('x-ratelimit-limit')).toBe('10')
    expect(answer.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/)
    expect(answer.headers.get('x-ratelimit-scope')).toBe('user')
    expect(answer.headers.get('x-ratelimit-global')).toBeNull()
  })

  it('answers a global 429 without a bucket', async () => {
    standIn.failNext({ path: /\/roles$/, status: 429, retryAfter: 0.2, global: true })
    const error = await caught(rest.get(Routes.guildRoles(standIn.guildId)))
    expect(error).toBeInstanceOf(RateLimitError)
    expect(error).toMatchObject({ global: true })

    standIn.failNext({ path: /\/roles$/, status: 429, retryAfter: 0.2, global: true })
    const answer = await fetch(`${standIn.apiUrl}/guilds/${standIn.guildId}/roles`)
    expect(await answer.json()).toEqual({ message: 'You are being rate limited.', retry_after: 0.2, global: true })
    expect(answer.headers.get('retry-after')).toBe('1')
    expect(answer.headers.get('x-ratelimit-global')).toBe('true')
    expect(answer.headers.get('x-ratelimit-scope')).toBe('global')
    expect(answer.headers.get('x-ratelimit-bucket')).toBeNull()
  })

  it('answers an injected 5xx as Discord does, changing nothing', async () => {
    standIn.addMember(BUYER)
    standIn.failNext({ path: rolePath(), status: 500 })
    const error = await caught(rest.put(Routes.guildMemberRole(standIn.guildId, BUYER, BUYERS_ROLE)))
    expect(error).toBeInstanceOf(HTTPError)
    expect(error).toMatchObject({ status: 500 })
    expect(standIn.member(BUYER)?.roles).toEqual([])

    standIn.failNext({ path: rolePath(), status: 502, count: 2 })
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const answer = await fetch(`${standIn.url}${rolePath()}`, { method: 'PUT' })
      expect(answer.status).toBe(502)
      expect(await answer.json()).toEqual({ message: '502: Bad Gateway', code: 0 })
    }
    standIn.failNext({ path: rolePath(), status: 500 })
    standIn.clearFailures()
    await rest.put(Routes.guildMemberRole(standIn.guildId, BUYER, BUYERS_ROLE))
    expect(standIn.member(BUYER)?.roles).toEqual([BUYERS_ROLE])
  })

  it('holds an answer for delayMs, then answers normally', async () => {
    standIn.addMember(BUYER)
    standIn.failNext({ path: rolePath(), delayMs: 300 })
    const started = Date.now()
    await rest.put(Routes.guildMemberRole(standIn.guildId, BUYER, BUYERS_ROLE))
    expect(Date.now() - started).toBeGreaterThanOrEqual(280)
    expect(standIn.member(BUYER)?.roles).toEqual([BUYERS_ROLE])
  })
})

describe('recorded requests and test controls', () => {
  it('records each request’s kind of credentials, never the credentials', async () => {
    const tokens = await signIn(BUYER)
    await me(tokens.accessToken())
    await rest.get(Routes.guildRoles(standIn.guildId))
    await fetch(`${standIn.apiUrl}/users/@me`)

    expect(
      standIn.requests.map(({ method, path, authorization, status }) => [method, path, authorization, status]),
    ).toEqual([
      ['POST', '/api/v10/oauth2/token', 'basic', 200],
      // @discordjs/rest percent-encodes the `@`; paths are recorded as sent.
      ['GET', '/api/v10/users/%40me', 'bearer', 200],
      ['GET', `/api/v10/guilds/${standIn.guildId}/roles`, 'bot', 200],
      ['GET', '/api/v10/users/@me', 'none', 401],
    ])
    const recorded = JSON.stringify(standIn.requests)
    for (const secret of [BOT_TOKEN, CLIENT_SECRET, tokens.accessToken(), tokens.refreshToken()]) {
      expect(recorded).not.toContain(secret)
    }
    const requests = standIn.requests
    standIn.clearRequests()
    expect(requests).toHaveLength(0)
  })

  it('reads the bot’s own user with its bot token', async () => {
    expect(await rest.get(Routes.user('@me'))).toMatchObject({ id: CLIENT_ID, bot: true, username: 'stand-in-bot' })
  })

  it('changes members by hand, as a moderator or the user would', async () => {
    const user = standIn.addUser({ username: 'late-joiner' })
    expect(user.id).toMatch(/^\d{17,20}$/)
    // A snowflake's top bits are its creation time, on the stand-in's clock.
    expect(Number((BigInt(user.id) >> 22n) + 1_420_070_400_000n)).toBe(now.getTime())
    expect(() => standIn.addUser({ username: 'late-joiner' })).toThrow('taken')

    standIn.addMember(user.id, [BUYERS_ROLE])
    standIn.addRoleByHand(user.id, ULTIMATE_ROLE)
    standIn.removeRoleByHand(user.id, BUYERS_ROLE)
    const fetched = (await rest.get(Routes.guildMember(standIn.guildId, user.id))) as APIGuildMember
    expect(fetched.roles).toEqual([ULTIMATE_ROLE])
    expect(() => standIn.addMember(user.id)).toThrow('member already')

    standIn.leaveGuild(user.id)
    expect(standIn.member(user.id)).toBeNull()
    expect(() => standIn.leaveGuild(user.id)).toThrow('not a member')
    expect(() => standIn.addRoleByHand(BUYER, BUYERS_ROLE)).toThrow('not a member')

    // Having left, the user can be added again, now with the roles in the body.
    const tokens = await signIn(BUYER)
    expect((await addToGuild(BUYER, tokens.accessToken(), [ULTIMATE_ROLE])).status).toBe(201)
    standIn.leaveGuild(BUYER)
    expect((await addToGuild(BUYER, tokens.accessToken(), [BUYERS_ROLE])).status).toBe(201)
    expect(standIn.member(BUYER)?.roles).toEqual([BUYERS_ROLE])
  })

  it('starts with default users, roles and ids when given only credentials', async () => {
    await standIn.close()
    standIn = await startDiscordStandIn({ botToken: BOT_TOKEN, clientId: 'standin-app', clientSecret: CLIENT_SECRET })
    expect(standIn.guildId).toMatch(/^\d{17,20}$/)
    expect(standIn.botUserId).toMatch(/^\d{17,20}$/)
    expect(standIn.apiUrl).toBe(`${standIn.url}/api/v10`)
    expect(standIn.authorizeUrl).toBe(`${standIn.url}/oauth2/authorize`)
    const roles = (await restWith(BOT_TOKEN).get(Routes.guildRoles(standIn.guildId))) as APIRole[]
    expect(roles.map((role) => role.name)).toEqual(['@everyone', 'Buyers', 'Ultimate', 'Stand-in Bot'])
    const overview = await (await fetch(standIn.url)).text()
    expect(overview).toContain('Discord stand-in: nothing here reaches Discord.')
    expect(overview).toContain('discord-buyer')
  })
})
