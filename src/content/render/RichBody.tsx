import { RichText } from '@payloadcms/richtext-lexical/react'
import type { SerializedEditorState } from '@payloadcms/richtext-lexical/lexical'

import { bodyConverters } from './converters'

/** A post's or changelog entry's Lexical body as HTML (server component). */
export const RichBody = ({
  data,
  siteOrigin,
  anchorPrefix,
  className = 'prose',
}: {
  data: SerializedEditorState
  siteOrigin: string
  /** For several bodies on one page, so their heading anchors stay unique. */
  anchorPrefix?: string
  className?: string
}) => (
  <RichText
    data={data}
    converters={bodyConverters(siteOrigin, anchorPrefix)}
    className={className}
    disableIndent={['listitem']}
  />
)
