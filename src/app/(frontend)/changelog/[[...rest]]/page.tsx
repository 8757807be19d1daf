import type { Metadata } from 'next'
import { draftMode } from 'next/headers'
import { notFound } from 'next/navigation'

import { PRODUCT_NAME } from '../../../../config/product'
import type { ChangelogItem } from '../../../../content/queries'
import { JsonLd } from '../../../../content/render/JsonLd'
import { RichBody } from '../../../../content/render/RichBody'
import { formatDate, isoDay } from '../../../../content/render/format'
import { changelogAnchor, changelogJsonLd, changelogMetadata, siteUrl } from '../../../../content/seo'
import { listChangelog, listDraftChangelog, staffSession } from '../../../_lib/content'
import { PreviewBanner } from '../../preview/_components/PreviewBanner'
import { ScriptFree } from '../../_components/ScriptFree'

/**
 * /changelog, as an optional catch-all whose static params are empty: the build renders nothing
 * (it has no database); the first request renders it and Next caches it until an entry is
 * published or changed (tag `content:changelog`) or 60 seconds pass. Any deeper path is a 404.
 * The download button decides in the browser, so the cached page is the same for everyone.
 */
export const revalidate = 60
export const generateStaticParams = (): { rest: string[] }[] => []

type Props = { params: Promise<{ rest?: string[] }> }

const CHANGE_LABELS: Record<string, string> = {
  added: 'Added',
  changed: 'Changed',
  fixed: 'Fixed',
  security: 'Security',
}

const loadEntries = async (): Promise<{ entries: ChangelogItem[]; preview: boolean }> => {
  const { isEnabled } = await draftMode()
  if (isEnabled) {
    const staff = await staffSession()
    if (staff) return { entries: await listDraftChangelog(staff), preview: true }
  }
  return { entries: await listChangelog(), preview: false }
}

export const generateMetadata = async ({ params }: Props): Promise<Metadata> =>
  (await params).rest?.length ? {} : changelogMetadata(siteUrl())

const ChangelogPage = async ({ params }: Props) => {
  if ((await params).rest?.length) notFound()
  const { entries, preview } = await loadEntries()
  const base = siteUrl()
  const origin = new URL(base).origin
  return (
    <>
      {preview ? <PreviewBanner returnTo="/changelog" /> : null}
      <div className="content-page changelog">
        {preview ? null : <ScriptFree />}
        <JsonLd data={changelogJsonLd(base, entries)} />
        <header className="page-header">
          <p className="eyebrow">Changelog</p>
          <h1>What’s new in {PRODUCT_NAME}</h1>
          <p className="page-lede">
            Every release, newest first: what was added, changed, fixed and secured. The stories behind them are on the{' '}
            <a href="/blog">blog</a>.
          </p>
        </header>
        {entries.length === 0 ? (
          <p className="empty">No releases yet.</p>
        ) : (
          <ol className="releases">
            {entries.map((entry) => {
              const anchor = changelogAnchor(entry.slug)
              return (
                <li key={entry.id} className="release" id={anchor} data-version={entry.version}>
                  <div className="release-aside">
                    <a
                      className="release-version"
                      href={`#${anchor}`}
                      aria-label={`v${entry.version}: link to this release`}
                    >
                      v{entry.version}
                    </a>
                    <time dateTime={isoDay(entry.publishedAt)}>{formatDate(entry.publishedAt)}</time>
                  </div>
                  <article className="release-main">
                    <h2>{entry.title}</h2>
                    {entry.changeTypes.length > 0 ? (
                      <ul className="badges" aria-label="Kinds of change">
                        {entry.changeTypes.map((type) => (
                          <li key={type} className={`badge badge-${type}`}>
                            {CHANGE_LABELS[type] ?? type}
                          </li>
                        ))}
                      </ul>
                    ) : null}
                    <p className="release-summary">{entry.summary}</p>
                    {entry.body ? <RichBody data={entry.body} siteOrigin={origin} anchorPrefix={`${anchor}-`} /> : null}
                    <div className="release-download" data-island="download" data-version={entry.version} hidden>
                      <button type="button" className="button" data-testid={`download-${entry.version}`}>
                        Download v{entry.version}
                      </button>
                      <p className="release-download-error" role="alert" hidden />
                    </div>
                  </article>
                </li>
              )
            })}
          </ol>
        )}
      </div>
    </>
  )
}

export default ChangelogPage
