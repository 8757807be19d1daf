import type { JSXConverterArgs, JSXConverters, JSXConvertersFunction } from '@payloadcms/richtext-lexical/react'
import type {
  DefaultNodeTypes,
  SerializedAutoLinkNode,
  SerializedBlockNode,
  SerializedHeadingNode,
  SerializedLinkNode,
  SerializedUploadNode,
} from '@payloadcms/richtext-lexical'

import { Callout } from './Callout'
import { CodeBlock } from './CodeBlock'
import { anchorAllocator } from './slug'
import { nodeText } from './text'

type CodeFields = { blockType: 'Code'; blockName?: string | null; language?: string | null; code?: string | null }
type CalloutFields = { blockType: 'Callout'; blockName?: string | null; kind?: string | null; text?: string | null }
export type BodyNodes = DefaultNodeTypes | SerializedBlockNode<CodeFields> | SerializedBlockNode<CalloutFields>

type UploadedImage = {
  url?: string | null
  alt?: string | null
  width?: number | null
  height?: number | null
  mimeType?: string | null
  filename?: string | null
}

const SAFE_HREF = /^(https?:\/\/|mailto:|\/(?!\/)|#)/i

/** Where an internal link (a relationship to one of our documents) points on the site. */
const internalHref = (link: SerializedLinkNode | SerializedAutoLinkNode): string | null => {
  const doc = link.fields.doc
  if (!doc || typeof doc.value !== 'object' || doc.value === null) return null
  const slug = (doc.value as { slug?: unknown }).slug
  if (typeof slug !== 'string') return null
  if (doc.relationTo === 'posts') return `/blog/${encodeURIComponent(slug)}`
  if (doc.relationTo === 'changelog_entries') return `/changelog#${encodeURIComponent(slug)}`
  return null
}

const isExternal = (href: string, siteOrigin: string): boolean => {
  if (!/^https?:\/\//i.test(href)) return false
  try {
    return new URL(href).origin !== siteOrigin
  } catch {
    return true
  }
}

/**
 * The body's JSX converters. Made per rendered body: heading anchors are numbered in document
 * order ("setup", "setup-2"), so the allocator must not be shared between documents. Several bodies
 * on one page (the changelog) keep their anchors apart with a prefix ("v1-2-0-fixed").
 */
export const bodyConverters = (siteOrigin: string, anchorPrefix = ''): JSXConvertersFunction<BodyNodes> => {
  const allocate = anchorAllocator()
  const anchor = (text: string) => `${anchorPrefix}${allocate(text)}`
  return ({ defaultConverters }) => {
    const heading: JSXConverters<SerializedHeadingNode>['heading'] = ({ node, nodesToJSX }) => {
      // The page title is the only h1: a body h1 renders as h2.
      const Tag = node.tag === 'h1' ? 'h2' : node.tag
      const id = anchor(nodeText(node))
      return (
        <Tag id={id} className="prose-heading">
          {nodesToJSX({ nodes: node.children })}
          <a className="heading-anchor" href={`#${id}`} aria-label="Link to this section">
            #
          </a>
        </Tag>
      )
    }

    const link = ({ node, nodesToJSX }: JSXConverterArgs<SerializedLinkNode | SerializedAutoLinkNode>) => {
      const children = nodesToJSX({ nodes: node.children })
      const href = node.fields.linkType === 'internal' ? internalHref(node) : (node.fields.url ?? '').trim()
      // Anything but http(s), mailto, a site path or a fragment (javascript:, data:) renders as text.
      if (!href || !SAFE_HREF.test(href)) return <span>{children}</span>
      const external = isExternal(href, siteOrigin)
      const newTab = Boolean(node.fields.newTab)
      const rel = [external || newTab ? 'noopener' : null, newTab ? 'noreferrer' : null].filter(Boolean).join(' ')
      return (
        <a href={href} rel={rel || undefined} target={newTab ? '_blank' : undefined}>
          {children}
        </a>
      )
    }

    const upload = ({ node }: JSXConverterArgs<SerializedUploadNode>) => {
      const doc = node.value as UploadedImage | number | string
      if (!doc || typeof doc !== 'object' || !doc.url) return null
      if (doc.mimeType && !doc.mimeType.startsWith('image/')) {
        return (
          <p>
            <a href={doc.url}>{doc.filename ?? 'Download the file'}</a>
          </p>
        )
      }
      const fields = (node.fields ?? {}) as { alt?: unknown }
      const alt = typeof fields.alt === 'string' && fields.alt ? fields.alt : (doc.alt ?? '')
      return (
        <figure className="prose-figure">
          <img
            src={doc.url}
            alt={alt}
            width={doc.width ?? undefined}
            height={doc.height ?? undefined}
            loading="lazy"
            decoding="async"
          />
          {alt ? <figcaption>{alt}</figcaption> : null}
        </figure>
      )
    }

    return {
      ...defaultConverters,
      heading,
      link,
      autolink: link,
      upload,
      blocks: {
        Code: ({ node }: { node: SerializedBlockNode<CodeFields> }) => (
          <CodeBlock code={node.fields.code ?? ''} language={node.fields.language} />
        ),
        Callout: ({ node }: { node: SerializedBlockNode<CalloutFields> }) => (
          <Callout kind={node.fields.kind} text={node.fields.text} />
        ),
      },
    }
  }
}
