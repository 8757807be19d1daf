import type { Metadata } from 'next'
import { notFound } from 'next/navigation'

import { blogListMetadata, siteUrl } from '../../../../../content/seo'
import { PostListPage, parseTag } from '../../_components/PostListPage'

/** /blog/tag/t: the posts of one tag, newest first (rendered on first request, then cached). */
export const revalidate = 60
export const generateStaticParams = (): { tag: string }[] => []

type Props = { params: Promise<{ tag: string }> }

export const generateMetadata = async ({ params }: Props): Promise<Metadata> => {
  const tag = parseTag((await params).tag)
  return tag ? blogListMetadata(siteUrl(), { page: 1, tag }) : {}
}

const TagPage = async ({ params }: Props) => {
  const tag = parseTag((await params).tag)
  if (!tag) notFound()
  return <PostListPage page={1} tag={tag} />
}

export default TagPage
