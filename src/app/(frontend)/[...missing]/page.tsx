import { notFound } from 'next/navigation'

/**
 * Every path no other route takes: the site's not-found page (../not-found.tsx) inside the site's
 * layout, instead of Next's bare one (the app has a root layout per route group, so Next's own
 * not-found has none).
 */
const Missing = () => notFound()

export default Missing
