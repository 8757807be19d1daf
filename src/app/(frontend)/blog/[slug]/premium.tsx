'use server'

import type { ReactNode } from 'react'

import { RichBody } from '../../../../content/render/RichBody'
import { SLUG_PATTERN } from '../../../../../collections/content/shared'
import { readEnv } from '../../../../config/env'
import { currentUser, getPayloadClient } from '../../../_lib/session'

/**
 * The body of a premium post for the signed-in reader, rendered on the server, or null when they
 * may not read it. The page itself stays the same cached page for everyone; this runs per reader,
 * through the posts' own field access (staff and holders of the post's feature key). Selecting only
 * the body is safe: the posts collection's forceSelect loads `requiredFeature`, what the rule decides
 * on, with any select (tests/int/content-premium.test.ts calls this action as each reader).
 */
export async function loadPremiumBody(slug: string): Promise<ReactNode | null> {
  if (typeof slug !== 'string' || !SLUG_PATTERN.test(slug)) return null
  const user = await currentUser()
  if (!user) return null
  const payload = await getPayloadClient()
  const { docs } = await payload.find({
    collection: 'posts',
    where: { slug: { equals: slug } },
    select: { body: true },
    depth: 1,
    limit: 1,
    overrideAccess: false,
    user,
  })
  const body = docs[0]?.body
  return body ? <RichBody data={body} siteOrigin={new URL(readEnv().serverUrl).origin} /> : null
}
