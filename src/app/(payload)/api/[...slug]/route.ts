import config from '@payload-config'
import { REST_DELETE, REST_GET, REST_OPTIONS, REST_PATCH, REST_POST } from '@payloadcms/next/routes'

import { withErrorShape } from '../../../../http/payload-errors'

export const GET = withErrorShape(REST_GET(config))
export const POST = withErrorShape(REST_POST(config))
export const DELETE = withErrorShape(REST_DELETE(config))
export const PATCH = withErrorShape(REST_PATCH(config))
export const OPTIONS = REST_OPTIONS(config)
