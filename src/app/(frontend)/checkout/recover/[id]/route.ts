import { reopenCheckout } from '../../../../../recovery/reopen'
import { getPayloadClient } from '../../../../_lib/session'

export const dynamic = 'force-dynamic'

/** GET /checkout/recover/<id>?t=: the recovery email's link (src/recovery/reopen.ts), always a 302. */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params
  const payload = await getPayloadClient()
  const result = await reopenCheckout(payload, id, new URL(request.url).searchParams.get('t'))
  const location = 'url' in result ? result.url : `/checkout/recovery?link=${result.refused}`
  return new Response(null, {
    status: 302,
    headers: { Location: location, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' },
  })
}
