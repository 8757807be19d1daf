import type { Metadata } from 'next'
import { notFound } from 'next/navigation'

import { blogListMetadata, siteUrl } from '../../../../../../../content/seo'
import { PostListPage, parsePage, parseTag } from '../../../../_components/PostListPage'

/** /blog/tag/t/page/n (rendered on first request, then cached). */
export const revalidate = 60
export const generateStaticParams = (): { tag: string; page: string }[] => []

type Props = { params: Promise<{ tag: string; page: string }> }

export const generateMetadata = async ({ params }: Props): Promise<Metadata> => {
  const { tag: rawTag, page: rawPage } = await params
  const tag = parseTag(rawTag)
  const page = parsePage(rawPage)
  return tag && page ? blogListMetadata(siteUrl(), { page, tag }) : {}
}

const TagListPage = async ({ params }: Props) => {
  const { tag: rawTag, page: rawPage } = await params
  const tag = parseTag(rawTag)
  const page = parsePage(rawPage)
  if (!tag || !page) notFound()
  return <PostListPage page={page} tag={tag} />
}

export default TagListPage
