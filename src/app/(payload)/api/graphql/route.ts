import config from '@payload-config'
import { REST_OPTIONS } from '@payloadcms/next/routes'

import { guardedGraphQLPost } from '../../../../auth/graphql-guard'

/** Payload's GraphQL, bounded per request and per client address for everyone but staff. */
export const POST = guardedGraphQLPost(config)
export const OPTIONS = REST_OPTIONS(config)
