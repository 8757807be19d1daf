'use server'

import { revalidatePath } from 'next/cache'
import { headers } from 'next/headers'
import { redirect } from 'next/navigation'
import { createLocalReq } from 'payload'

import { currentUser, getPayloadClient } from '../auth/session'
import { clientAddress } from '../http/client-address'
import { ServiceError } from '../http/errors'
import { type DownloadSettings, requestDownload } from './download'
import { type CodeHostProvider, requestRepoAccess } from './repo-access'

type DeliveryRuntime = { downloads: DownloadSettings; codeHost: CodeHostProvider }

const context = async () => {
  const user = await currentUser()
  if (!user) redirect('/sign-in?next=/dashboard')
  const payload = await getPayloadClient()
  const runtime = payload.config.custom?.delivery as DeliveryRuntime
  const req = await createLocalReq({ user: { ...user!, collection: 'users' } }, payload)
  return { req, runtime }
}

const failed = (error: unknown, param: string): never => {
  const code = error instanceof ServiceError ? error.code : 'unavailable'
  redirect(`/dashboard?${param}=${encodeURIComponent(code)}`)
}

/** The dashboard's Download button (works without JS): a fresh signed link, then straight to it. */
export async function downloadKit(form: FormData) {
  const { req, runtime } = await context()
  const version = form.get('version')
  const requestHeaders = await headers()
  let url: string
  try {
    ;({ url } = await requestDownload(req, runtime.downloads, typeof version === 'string' && version ? [version] : [], {
      address: clientAddress(requestHeaders),
      userAgent: requestHeaders.get('user-agent'),
    }))
  } catch (error) {
    failed(error, 'download_error')
  }
  redirect(url!)
}

/** The dashboard's repository access form. */
export async function askRepoAccess(form: FormData) {
  const { req, runtime } = await context()
  try {
    await requestRepoAccess(req, runtime.codeHost, form.get('username'))
  } catch (error) {
    failed(error, 'repo_error')
  }
  // The dashboard shows the new state, not the one the browser already holds.
  revalidatePath('/dashboard')
  redirect('/dashboard#repository')
}
