import { createRequire } from 'node:module'

import type { SharpDependency } from 'payload'
import type sharp from 'sharp'

/**
 * The media collection's image resizing (Payload's `sharp` option), with sharp loaded by the first
 * image it resizes instead of by every process that loads the config. Loading sharp maps libvips and
 * starts its threads: 19.5 MiB of resident memory and four threads on Node 24
 * (`node -e "require('sharp')"`, RSS before and after), in every server and jobs worker, for what only
 * a staff upload of an image uses.
 */
const requireHere = createRequire(import.meta.url)
let loaded: typeof sharp | undefined

export const lazySharp = ((...args: Parameters<typeof sharp>) => {
  loaded ??= requireHere('sharp') as typeof sharp
  return loaded(...args)
}) as SharpDependency
