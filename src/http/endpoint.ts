import type { Endpoint, PayloadRequest } from 'payload'
import type { z } from 'zod'

import { isAdminUser, isStaffUser } from '../access/roles'
import type { User } from '../payload-types'
import { accountOf } from './account'
import { clientAddress } from './client-address'
import { errorResponse, ServiceError } from './errors'

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'

/** What a handler gets: the request, its validated body and query, the user and the client address. */
type EndpointContext<Body, Query, Params, Auth extends string | undefined = undefined> = {
  req: PayloadRequest
  body: Body
  query: Query
  params: Params
  /** The signed-in user (Payload's session or JWT); null only on endpoints without `auth`. */
  user: Auth extends string ? User : User | null
  /** The client address the host derived (see src/http/client-address.ts), or null. */
  address: string | null
}

type Output<S> = S extends z.ZodType ? z.output<S> : undefined

export type EndpointSpec<
  BodySchema extends z.ZodType | 'raw' | undefined,
  QuerySchema extends z.ZodType | undefined,
  ParamsSchema extends z.ZodType | undefined,
  Auth extends string | undefined,
> = {
  path: string
  method: Method
  /**
   * The JSON body's schema (an empty body is validated as `{}`), or 'raw' to leave the body unread
   * for the handler (the processor webhook verifies the exact bytes). No body is read without one.
   */
  body?: BodySchema
  /**
   * A beacon's body (navigator.sendBeacon sends its text as text/plain): JSON is read from text/plain
   * too, and a body over `maxBytes` is 400 `invalid_request`. Only for endpoints that act on no session,
   * since a cross-site form can send text/plain.
   */
  beacon?: { maxBytes: number }
  /** The query's schema: each parameter is a string, or an array of strings when it is repeated. */
  query?: QuerySchema
  /** The path parameters' schema (`:id` in the path). */
  params?: ParamsSchema
  /** Answer this instead of 400 `invalid_request` when the body, query or params are not valid. */
  invalid?: ServiceError
  /** Refuse anonymous requests with 401 `unauthenticated` and this message. */
  auth?: Auth
  /**
   * Staff only (with `auth`): refuse other signed-in users with 403 `forbidden` and this message,
   * before the body is read or validated.
   */
  staff?: Auth extends string ? string : never
  /** Admins only (with `auth`): refuse other signed-in users, support staff included, with 403 `forbidden` and this message. */
  admin?: Auth extends string ? string : never
  /**
   * Callable from any origin (an app's page in a browser, through the license client): every answer,
   * errors included, says `Access-Control-Allow-Origin: *`, and `Retry-After` may be read. Never with
   * `auth`: a `*` answer cannot carry credentials, and the endpoint must need none.
   */
  publicCors?: Auth extends string ? never : true
  /** Returns a Response, or a value sent as JSON with 200. */
  handler: (
    context: EndpointContext<Output<BodySchema>, Output<QuerySchema>, Output<ParamsSchema>, Auth>,
  ) => Promise<Response | object> | Response | object
}

const invalid = (message: string) => new ServiceError(400, 'invalid_request', message)

/**
 * The `req.context` entry where an auth strategy records why it refused the credentials a request
 * presented (src/auth/api-keys.ts: an unknown key is 401 `invalid_api_key`, not `unauthenticated`).
 */
export const AUTH_REFUSAL = 'authRefusal'

const refusalOf = (req: PayloadRequest): ServiceError | null => {
  const refusal = req.context?.[AUTH_REFUSAL]
  return refusal instanceof ServiceError ? refusal : null
}

/** `priceId: Invalid input: expected string, received number`: every issue names its field. */
const validationResponse = (error: z.ZodError, where: 'body' | 'query' | 'path'): Response =>
  Response.json(
    {
      errors: error.issues.slice(0, 10).map((issue) => ({
        code: 'invalid_request',
        message: `${issue.path.length > 0 ? issue.path.join('.') : where}: ${issue.message}`,
      })),
    },
    { status: 400 },
  )

const readJson = async (req: PayloadRequest, beacon: { maxBytes: number } | undefined): Promise<unknown> => {
  const limit = beacon?.maxBytes ?? Infinity
  const tooLarge = () => invalid(`The body is larger than ${limit} bytes.`)
  if (Number(req.headers.get('content-length') ?? 0) > limit) throw tooLarge()
  const text = await req.text!()
  if (Buffer.byteLength(text) > limit) throw tooLarge()
  if (text.trim() === '') return {}
  const type = (req.headers.get('content-type') ?? '').toLowerCase()
  // Also a CSRF guard: a cross-site form cannot send application/json without a CORS preflight.
  if (!type.startsWith('application/json') && !(beacon && type.startsWith('text/plain'))) {
    throw invalid(`Send a JSON body with Content-Type: application/json${beacon ? ' (or text/plain)' : ''}.`)
  }
  try {
    return JSON.parse(text)
  } catch {
    throw invalid('The body is not valid JSON.')
  }
}

const queryOf = (req: PayloadRequest): Record<string, string | string[]> => {
  const query: Record<string, string | string[]> = {}
  for (const key of new Set(req.searchParams.keys())) {
    const values = req.searchParams.getAll(key)
    query[key] = values.length === 1 ? values[0]! : values
  }
  return query
}

/** Long runs of token-like characters (keys, tokens, signatures) and SQL parameters never reach a log. */
const scrub = (text: string | undefined) =>
  (text ?? '').replace(/\nparams: [\s\S]*/g, '\nparams: [redacted]').replace(/[A-Za-z0-9_+/=-]{24,}/g, '[redacted]')

const logFailure = (req: PayloadRequest, spec: { method: Method; path: string }, error: unknown) => {
  const failure = error instanceof Error ? error : new Error(String(error))
  req.payload.logger.error(
    {
      endpoint: `${spec.method.toUpperCase()} ${spec.path}`,
      error: { name: failure.name, message: scrub(failure.message), stack: scrub(failure.stack) },
    },
    'endpoint failed',
  )
}

/** The headers of an answer any origin may read (`publicCors`). */
const PUBLIC_CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'Retry-After',
} as const

const withPublicCors = (response: Response): Response => {
  for (const [name, value] of Object.entries(PUBLIC_CORS)) response.headers.set(name, value)
  return response
}

/**
 * The preflight of `publicCors` endpoints at `path`: a browser sends it before a JSON POST from another
 * origin. 204, for a day, for the methods and the one header those endpoints read.
 */
export const publicPreflight = (path: string): Endpoint => ({
  path,
  method: 'options',
  handler: () =>
    new Response(null, {
      status: 204,
      headers: {
        ...PUBLIC_CORS,
        'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
        'Access-Control-Allow-Headers': 'Content-Type',
        'Access-Control-Max-Age': '86400',
      },
    }),
})

/**
 * The one request adapter of the custom endpoints: validates the body and query (400
 * `invalid_request` naming the field), resolves the user (401 `unauthenticated` when `auth` is set,
 * 403 `forbidden` for non-staff when `staff` is, for non-admins when `admin` is),
 * reads the client address, and turns every failure into the error shape: a ServiceError keeps its
 * status and code; anything else is logged (without secrets) and answers 500 `internal_error`.
 */
export const endpoint = <
  BodySchema extends z.ZodType | 'raw' | undefined = undefined,
  QuerySchema extends z.ZodType | undefined = undefined,
  ParamsSchema extends z.ZodType | undefined = undefined,
  Auth extends string | undefined = undefined,
>(
  spec: EndpointSpec<BodySchema, QuerySchema, ParamsSchema, Auth>,
): Endpoint => {
  const answer = async (req: PayloadRequest): Promise<Response> => {
    try {
      const user = accountOf(req)
      if (spec.auth && !user) throw refusalOf(req) ?? new ServiceError(401, 'unauthenticated', spec.auth)
      if (spec.staff && !isStaffUser(user)) throw new ServiceError(403, 'forbidden', spec.staff)
      if (spec.admin && !isAdminUser(user)) throw new ServiceError(403, 'forbidden', spec.admin)
      const validate = async (
        schema: z.ZodType | undefined,
        input: () => unknown,
        where: 'body' | 'query' | 'path',
      ) => {
        if (!schema) return { data: undefined }
        const parsed = schema.safeParse(await input())
        if (parsed.success) return { data: parsed.data }
        if (spec.invalid) throw spec.invalid
        return { failed: validationResponse(parsed.error, where) }
      }
      const params = await validate(spec.params, () => ({ ...req.routeParams }), 'path')
      if (params.failed) return params.failed
      const query = await validate(spec.query, () => queryOf(req), 'query')
      if (query.failed) return query.failed
      const body = await validate(spec.body === 'raw' ? undefined : spec.body, () => readJson(req, spec.beacon), 'body')
      if (body.failed) return body.failed
      const result = await spec.handler({
        req,
        body: body.data as Output<BodySchema>,
        query: query.data as Output<QuerySchema>,
        params: params.data as Output<ParamsSchema>,
        user: user as EndpointContext<unknown, unknown, unknown, Auth>['user'],
        address: clientAddress(req.headers),
      })
      return result instanceof Response ? result : Response.json(result)
    } catch (error) {
      if (!(error instanceof ServiceError)) logFailure(req, spec, error)
      return errorResponse(error)
    }
  }
  return {
    path: spec.path,
    method: spec.method,
    handler: async (req) => {
      const response = await answer(req)
      return spec.publicCors ? withPublicCors(response) : response
    },
  }
}
