import { loadVisitorPricing } from '../../_components/pricing-data'

export const dynamic = 'force-dynamic'

/**
 * GET /pricing/visitor: the signed-in visitor's side of the cached pricing table (the plans they own,
 * their upgrades), for the table's island (VisitorPricing.tsx). `{signedIn: false, ...}` for anyone else.
 * `private, no-cache`, not `no-store`: a page whose script received a no-store answer cannot enter the
 * browser's back-forward cache.
 */
export async function GET() {
  return Response.json(await loadVisitorPricing(), { headers: { 'Cache-Control': 'private, no-cache' } })
}
