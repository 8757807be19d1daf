import express, { type NextFunction, type Request, type Response } from 'express'

import type { DiscordHost } from './context'
import {
  invalidFormBody,
  invalidOAuth2AccessToken,
  missingPermissions,
  requiredField,
  unauthorized,
  unknownGuild,
  unknownMember,
  unknownRole,
  unknownUser,
} from './errors'
import { assignableRole, botCanManage, giveRole, highestPosition, joinGuild, takeRole } from './guild'
import { memberObject, roleObject } from './objects'
import { SNOWFLAKE } from './snowflakes'
import { grantOfAccessToken, presentedToken } from './tokens'

/** Discord validates path ids like body fields: anything not a snowflake is a 50035 naming the field. */
const snowflakeParam = (req: Request, name: string, field: string): string => {
  const value = String(req.params[name])
  if (!SNOWFLAKE.test(value)) throw invalidFormBody(field, 'NUMBER_TYPE_COERCE', `Value "${value}" is not snowflake.`)
  return value
}

const noContent = (res: Response): void => {
  res.status(204).end()
}

type AddMemberBody = { access_token?: unknown; nick?: unknown; roles?: unknown; mute?: unknown; deaf?: unknown }

const bodyOf = (req: Request): AddMemberBody =>
  typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body) ? (req.body as AddMemberBody) : {}

/** The guild routes a bot calls for the "community role" benefit, on the one guild there is. */
export const guildRoutes = (host: DiscordHost): express.Router => {
  const router = express.Router()

  // Every guild route is a bot's: a missing, wrong or Bearer token is a 401 before anything else.
  router.use('/guilds', (req: Request, _res: Response, next: NextFunction) => {
    if (presentedToken(req.get('authorization'), 'Bot') !== host.botToken) throw unauthorized()
    next()
  })

  const guildOf = (req: Request): void => {
    if (snowflakeParam(req, 'guildId', 'guild_id') !== host.guildId) throw unknownGuild()
  }

  const memberOf = (req: Request) => {
    guildOf(req)
    const member = host.members.get(snowflakeParam(req, 'userId', 'user_id'))
    if (!member) throw unknownMember()
    return member
  }

  /** A role the bot may hand out or take away: known, not `@everyone`, below the bot's own. */
  const manageableRole = (roleId: string) => {
    const role = assignableRole(host, roleId)
    if (!role) throw unknownRole()
    if (!botCanManage(host, role)) throw missingPermissions()
    return role
  }

  // "Add Guild Member": 201 with the member, or 204 with no body (and the roles ignored) for a member already.
  router.put('/guilds/:guildId/members/:userId', (req, res) => {
    guildOf(req)
    const userId = snowflakeParam(req, 'userId', 'user_id')
    const body = bodyOf(req)
    if (typeof body.access_token !== 'string') throw requiredField('access_token')
    if (!host.users.has(userId)) throw unknownUser()
    const grant = grantOfAccessToken(host, body.access_token)
    if (!grant || grant.userId !== userId || !grant.scopes.includes('guilds.join')) throw invalidOAuth2AccessToken()
    if (host.members.has(userId)) {
      noContent(res)
      return
    }
    const roles = Array.isArray(body.roles) ? body.roles.map(String) : []
    for (const roleId of roles) manageableRole(roleId)
    const member = joinGuild(host, userId, roles, {
      nick: typeof body.nick === 'string' ? body.nick : null,
      mute: body.mute === true,
      deaf: body.deaf === true,
    })
    res.status(201).json(memberObject(host, member))
  })

  router.get('/guilds/:guildId/members/:userId', (req, res) => {
    res.json(memberObject(host, memberOf(req)))
  })

  // A kick; like any moderation, only of a member whose highest role is below the bot's.
  router.delete('/guilds/:guildId/members/:userId', (req, res) => {
    const member = memberOf(req)
    if (highestPosition(host, member) >= highestPosition(host, host.members.get(host.botUserId))) {
      throw missingPermissions()
    }
    host.members.delete(member.userId)
    noContent(res)
  })

  // Both idempotent: adding a role the member has, or removing one they lack, is still a 204.
  router.put('/guilds/:guildId/members/:userId/roles/:roleId', (req, res) => {
    const member = memberOf(req)
    giveRole(member, manageableRole(snowflakeParam(req, 'roleId', 'role_id')).id)
    noContent(res)
  })

  router.delete('/guilds/:guildId/members/:userId/roles/:roleId', (req, res) => {
    const member = memberOf(req)
    takeRole(member, manageableRole(snowflakeParam(req, 'roleId', 'role_id')).id)
    noContent(res)
  })

  router.get('/guilds/:guildId/roles', (req, res) => {
    guildOf(req)
    const roles = [...host.roles.values()].sort((a, b) => a.position - b.position || a.id.localeCompare(b.id))
    res.json(roles.map((role) => roleObject(host, role)))
  })

  return router
}
