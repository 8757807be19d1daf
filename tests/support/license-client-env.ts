/**
 * Import this FIRST in a test of the license client against the service: an HTTP front for Payload,
 * whose address becomes SERVER_URL before anything reads the Payload config, so the certificates it
 * signs name it as their issuer (`iss`), as a deployed service names its own origin.
 */
import { afterAll } from 'vitest'

import { startEndpointServer } from './endpoint-server'

export const service = await startEndpointServer()
process.env.SERVER_URL = service.url

afterAll(() => service.close())
