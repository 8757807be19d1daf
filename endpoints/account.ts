import type { Endpoint } from 'payload'

import { clientAddress } from '../src/auth/rate-limit'
import { requestPasswordReset } from '../src/auth/recovery'
import { signUpWithPassword } from '../src/auth/sign-up'
import { errorResponse } from '../src/http/errors'
import { readJsonObject } from '../src/http/json'

type Options = { serverUrl: string; productName: string }

/** POST /api/auth/sign-up {email, password, name?, next?}: 200 {ok: true} for new and existing emails alike. */
export const signUpEndpoint = (options: Options): Endpoint => ({
  path: '/auth/sign-up',
  method: 'post',
  handler: async (req) => {
    try {
      const body = await readJsonObject(req)
      await signUpWithPassword(req.payload, body, { ...options, address: clientAddress(req.headers) })
      return Response.json({ ok: true })
    } catch (error) {
      return errorResponse(error)
    }
  },
})

/** POST /api/auth/forgot-password {email}: 200 {ok: true} for known and unknown emails alike. */
export const forgotPasswordEndpoint = (options: Options): Endpoint => ({
  path: '/auth/forgot-password',
  method: 'post',
  handler: async (req) => {
    try {
      const body = await readJsonObject(req)
      await requestPasswordReset(req.payload, body, { ...options, address: clientAddress(req.headers) })
      return Response.json({ ok: true })
    } catch (error) {
      return errorResponse(error)
    }
  },
})
