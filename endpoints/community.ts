import { type Endpoint, parseCookies, type PayloadRequest } from 'payload'
import { z } from 'zod'

import { optionalRuntimeOf } from '../src/config/runtime'
import { accountOf } from '../src/http/account'
import { endpoint } from '../src/http/endpoint'
import { ServiceError } from '../src/http/errors'
import { pathRowId } from '../src/http/paths'
import {
  clearStateCookie,
  disconnectDiscord,
  finishDiscordConnect,
  STATE_COOKIE,
  startDiscordConnect,
} from '../src/community/link'
import type { CommunityRuntime } from '../src/community/runtime'
import { syncCommunityByStaff } from '../src/community/staff'
import { entitledRoles, grantsView, linkOf } from '../src/community/sync'
import { staffReasonBody } from '../src/staff/audit'

const NO_STORE = { 'Cache-Control': 'no-store' }

/** The community's settings, or 404 when Discord is not configured on this server. */
const communityOf = (req: PayloadRequest): CommunityRuntime => {
  const runtime = optionalRuntimeOf(req.payload, 'community')
  if (!runtime) throw new ServiceError(404, 'not_found', 'There is no Discord community on this server.')
  return runtime
}

/** GET /api/community/discord: whether the customer may join, their linked account and the roles given. */
export const communityStatusEndpoint: Endpoint = endpoint({
  path: '/community/discord',
  method: 'get',
  auth: 'Sign in to see your community access.',
  handler: async ({ req, user }) => {
    communityOf(req)
    const [roles, link, grants] = await Promise.all([
      entitledRoles(req.payload, user.id),
      linkOf(req.payload, user.id),
      grantsView(req.payload, user.id),
    ])
    return Response.json(
      {
        entitled: roles.length > 0,
        link: link?.discord_user_id
          ? { discordUserId: link.discord_user_id, discordUsername: link.discord_username, linkedAt: link.linked_at }
          : null,
        grants: grants
          .filter((grant) => grant.discordUserId === link?.discord_user_id)
          .map(({ roleId, state }) => ({ roleId, state })),
      },
      { headers: NO_STORE },
    )
  },
})

/** GET /api/community/discord/connect: 302 to Discord (signed in, entitled: else 401, 403 `feature_required`). */
export const communityConnectEndpoint: Endpoint = endpoint({
  path: '/community/discord/connect',
  method: 'get',
  auth: 'Sign in to join the community.',
  handler: async ({ req, user }) => {
    const { location, cookie } = await startDiscordConnect(req, communityOf(req), user)
    return new Response(null, { status: 302, headers: { Location: location, 'Set-Cookie': cookie, ...NO_STORE } })
  },
})

const MAX_PARAM = 2048

/**
 * GET /api/community/discord/callback?code&state (or ?error): always 302 to the dashboard with
 * `community=joined` or a code, the state cookie cleared.
 */
export const communityCallbackEndpoint: Endpoint = endpoint({
  path: '/community/discord/callback',
  method: 'get',
  query: z.object({
    code: z.string().max(MAX_PARAM).optional().catch(undefined),
    state: z.string().max(MAX_PARAM).optional().catch(undefined),
    error: z.string().max(MAX_PARAM).optional().catch(undefined),
  }),
  handler: async ({ req, query }) => {
    const runtime = communityOf(req)
    const outcome = await finishDiscordConnect(req, runtime, accountOf(req), {
      ...query,
      cookie: parseCookies(req.headers).get(STATE_COOKIE),
    })
    return new Response(null, {
      status: 302,
      headers: {
        Location: `${runtime.deps.serverUrl}/dashboard?community=${outcome}#community`,
        'Set-Cookie': clearStateCookie(runtime),
        ...NO_STORE,
      },
    })
  },
})

/** DELETE /api/community/discord: 204; the link is gone and the roles come off (now, or by the queued job). */
export const communityDisconnectEndpoint: Endpoint = endpoint({
  path: '/community/discord',
  method: 'delete',
  auth: 'Sign in to disconnect Discord.',
  handler: async ({ req, user }) => {
    await disconnectDiscord(req.payload, communityOf(req), user.id)
    return new Response(null, { status: 204, headers: NO_STORE })
  },
})

/** POST /api/staff/users/:id/community-sync {reason}: 200 {user, link, grants, auditLogId}; staff only. */
export const staffCommunitySyncEndpoint: Endpoint = endpoint({
  path: '/staff/users/:id/community-sync',
  method: 'post',
  auth: 'Sign in as staff first.',
  staff: 'Only staff sync a customer’s community roles.',
  params: z.object({ id: z.string().max(64) }),
  body: staffReasonBody,
  handler: ({ req, params, body }) =>
    syncCommunityByStaff(
      req,
      communityOf(req),
      pathRowId(params.id, () => new ServiceError(404, 'user_not_found', 'There is no user with this id.')),
      body.reason,
    ),
})
