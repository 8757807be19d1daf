import { ImageResponse } from 'next/og'

import { formatDate } from '../../../../content/render/format'
import { PRODUCT_NAME } from '../../../../config/product'
import { getPost } from '../../../_lib/content'

/**
 * The post's social image, 1200x630 PNG: title, date and the product name. Next references it
 * from og:image and twitter:image. Published posts only (a draft's image is a 404, like its page);
 * rendered on first request and cached under the same 60-second ceiling as the page. The 404 is a
 * plain uncached response: notFound() here would tell shared caches to keep it for a year.
 */
export const revalidate = 60
export const generateStaticParams = (): { slug: string }[] => []
export const alt = `${PRODUCT_NAME} blog post`
export const size = { width: 1200, height: 630 }
export const contentType = 'image/png'

type Props = { params: Promise<{ slug: string }> }

/** Long titles step down so they stay within three lines. */
const titleSize = (title: string) => (title.length > 80 ? 56 : title.length > 48 ? 64 : 76)

const OpenGraphImage = async ({ params }: Props) => {
  const { slug } = await params
  const post = /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(slug) ? await getPost(slug) : null
  if (!post)
    return new Response('Not found', {
      status: 404,
      headers: { 'Cache-Control': 'no-store', 'Content-Type': 'text/plain' },
    })
  return new ImageResponse(
    <div
      style={{
        width: '100%',
        height: '100%',
        display: 'flex',
        flexDirection: 'column',
        justifyContent: 'space-between',
        padding: '72px 80px',
        background: 'linear-gradient(135deg, #0f172a 0%, #1e1b4b 55%, #312e81 100%)',
        color: '#f8fafc',
      }}
    >
      <div style={{ display: 'flex', alignItems: 'center', gap: 20 }}>
        <div
          style={{
            width: 56,
            height: 56,
            borderRadius: 14,
            background: '#6366f1',
            display: 'flex',
            alignItems: 'center',
            justifyContent: 'center',
            fontSize: 34,
            color: '#ffffff',
          }}
        >
          S
        </div>
        <div style={{ fontSize: 34, letterSpacing: -0.5 }}>{PRODUCT_NAME}</div>
        <div style={{ fontSize: 28, color: '#a5b4fc', marginLeft: 8 }}>Blog</div>
      </div>
      <div
        style={{
          display: 'flex',
          fontSize: titleSize(post.title),
          lineHeight: 1.15,
          letterSpacing: -1.5,
          maxWidth: 1040,
        }}
      >
        {post.title}
      </div>
      <div
        style={{
          display: 'flex',
          alignItems: 'center',
          justifyContent: 'space-between',
          fontSize: 28,
          color: '#cbd5e1',
        }}
      >
        <div style={{ display: 'flex' }}>
          {formatDate(post.publishedAt)} · {post.author}
        </div>
        <div style={{ display: 'flex', color: '#a5b4fc' }}>
          {post.readingMinutes ? `${post.readingMinutes} min read` : 'For customers'}
        </div>
      </div>
    </div>,
    size,
  )
}

export default OpenGraphImage
