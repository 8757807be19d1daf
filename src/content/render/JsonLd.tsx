import { serializeJsonLd } from '../seo'

/** Structured data in a `<script type="application/ld+json">`, escaped so no value can close the element. */
export const JsonLd = ({ data }: { data: unknown }) => (
  <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: serializeJsonLd(data) }} />
)
