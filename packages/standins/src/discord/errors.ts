import http from 'node:http'

import { RESTJSONErrorCodes } from 'discord-api-types/v10'

/** Discord's JSON error body; `errors` holds the per-field details of a 50035 "Invalid Form Body". */
export type DiscordErrorBody = { message: string; code: number; errors?: Record<string, unknown> }

/** Thrown anywhere in the API routes; the error handler answers with its status and body. */
export class DiscordApiError extends Error {
  override name = 'DiscordApiError'
  constructor(
    readonly status: number,
    readonly body: DiscordErrorBody,
  ) {
    super(body.message)
  }
}

/** What Discord answers when the status alone is the message: `401: Unauthorized`, code 0. */
export const generalError = (status: number): DiscordErrorBody => ({
  message: `${status}: ${http.STATUS_CODES[status] ?? 'Error'}`,
  code: RESTJSONErrorCodes.GeneralError,
})

const coded = (status: number, message: string, code: RESTJSONErrorCodes) =>
  new DiscordApiError(status, { message, code })

export const unauthorized = () => new DiscordApiError(401, generalError(401))
export const unknownGuild = () => coded(404, 'Unknown Guild', RESTJSONErrorCodes.UnknownGuild)
export const unknownMember = () => coded(404, 'Unknown Member', RESTJSONErrorCodes.UnknownMember)
export const unknownRole = () => coded(404, 'Unknown Role', RESTJSONErrorCodes.UnknownRole)
export const unknownUser = () => coded(404, 'Unknown User', RESTJSONErrorCodes.UnknownUser)
export const missingPermissions = () => coded(403, 'Missing Permissions', RESTJSONErrorCodes.MissingPermissions)
export const invalidOAuth2AccessToken = () =>
  coded(403, 'Invalid OAuth2 access token', RESTJSONErrorCodes.InvalidOAuth2AccessToken)

/**
 * Discord's 50035 for a request whose fields (path ids included) fail validation, with the nested
 * `{ field: { _errors: [{ code, message }] } }` details that @discordjs/rest flattens into its message.
 */
export const invalidFormBody = (field: string, code: string, message: string) =>
  new DiscordApiError(400, {
    message: 'Invalid Form Body',
    code: RESTJSONErrorCodes.InvalidFormBodyOrContentType,
    errors: { [field]: { _errors: [{ code, message }] } },
  })

export const requiredField = (field: string) => invalidFormBody(field, 'BASE_TYPE_REQUIRED', 'This field is required')
