import type { Endpoint } from 'payload'
import { z } from 'zod'

import { requestPasswordReset } from '../src/auth/recovery'
import { signUpCookie, signUpWithPassword } from '../src/auth/sign-up'
import { endpoint } from '../src/http/endpoint'

type Options = { serverUrl: string; productName: string }

// Shapes only: the address and password rules live with the operations, which the forms call too.
const signUpBody = z.object({
  email: z.string().max(320),
  password: z.string().max(1024),
  name: z.string().max(1024).nullish(),
  next: z.string().max(2048).nullish(),
})
const forgotPasswordBody = z.object({ email: z.string().max(320) })

/**
 * POST /api/auth/sign-up {email, password, name?, next?}: 200 {ok: true} for new and existing emails
 * alike, with the sign-up browser's cookie: the confirmation link keeps this password only where it is.
 */
export const signUpEndpoint = (options: Options): Endpoint =>
  endpoint({
    path: '/auth/sign-up',
    method: 'post',
    body: signUpBody,
    handler: async ({ req, body, address }) => {
      const { browserProof } = await signUpWithPassword(req.payload, body, { ...options, address })
      return Response.json({ ok: true }, { headers: { 'Set-Cookie': signUpCookie(options.serverUrl, browserProof) } })
    },
  })

/** POST /api/auth/forgot-password {email}: 200 {ok: true} for known and unknown emails alike. */
export const forgotPasswordEndpoint = (options: Options): Endpoint =>
  endpoint({
    path: '/auth/forgot-password',
    method: 'post',
    body: forgotPasswordBody,
    handler: async ({ req, body, address }) => {
      await requestPasswordReset(req.payload, body, { ...options, address })
      return { ok: true }
    },
  })
