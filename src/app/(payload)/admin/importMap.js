import { RetryEventButton as RetryEventButton_ef847f54addf68359f85ebb123eb435b } from '../../../components/RetryEventButton'
import { CollectionCards as CollectionCards_f9c02e79a4aed9a3924487c0cd4cafb1 } from '@payloadcms/next/rsc'

/** @type import('payload').ImportMap */
export const importMap = {
  "/components/RetryEventButton#RetryEventButton": RetryEventButton_ef847f54addf68359f85ebb123eb435b,
  "@payloadcms/next/rsc#CollectionCards": CollectionCards_f9c02e79a4aed9a3924487c0cd4cafb1
}
