import type { Metadata } from 'next'
import { notFound } from 'next/navigation'

import { blogListMetadata, siteUrl } from '../../../../../content/seo'
import { PostListPage, parsePage } from '../../_components/PostListPage'

/**
 * /blog/page/n, and /blog itself (rewritten to /blog/page/1 in next.config.ts). Rendered on the
 * first request, not at build time (the build has no database), then served from Next's cache
 * until a post is published (tag `content:posts`) or 60 seconds pass.
 */
export const revalidate = 60
export const generateStaticParams = (): { page: string }[] => []

type Props = { params: Promise<{ page: string }> }

export const generateMetadata = async ({ params }: Props): Promise<Metadata> => {
  const page = parsePage((await params).page)
  return page ? blogListMetadata(siteUrl(), { page }) : {}
}

const BlogPage = async ({ params }: Props) => {
  const page = parsePage((await params).page)
  if (!page) notFound()
  return <PostListPage page={page} tag={null} />
}

export default BlogPage
