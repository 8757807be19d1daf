import type { MetadataRoute } from 'next'

import { PRODUCT_DESCRIPTION, PRODUCT_NAME } from '../config/product'

/**
 * GET /manifest.webmanifest: the site's name, colours and icons for a phone's home screen (and
 * Lighthouse's installability checks). Icons: public/icons (192, 512, and a maskable 512 with the mark
 * inside the safe zone), drawn from src/app/(frontend)/icon.svg.
 */
const manifest = (): MetadataRoute.Manifest => ({
  name: PRODUCT_NAME,
  short_name: PRODUCT_NAME,
  description: PRODUCT_DESCRIPTION,
  start_url: '/',
  display: 'browser',
  background_color: '#ffffff',
  theme_color: '#4338ca',
  icons: [
    { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png' },
    { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png' },
    { src: '/icons/maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
  ],
})

export default manifest
