import type { Metadata } from 'next'
import { notFound } from 'next/navigation'

import { PRODUCT_DESCRIPTION, PRODUCT_NAME } from '../../../../config/product'
import { siteUrl } from '../../../../content/seo'
import { PricingNotices } from '../../_components/PricingNotices'
import { PricingTable } from '../../_components/PricingTable'
import { ScriptFree } from '../../_components/ScriptFree'
import { activePlans } from '../../_components/pricing-data'

/**
 * The storefront: the home page (`/`) and `/pricing`, which next.config.mjs rewrites here. One page
 * for every visitor, rendered on the first request (the build has no database: no static params) and
 * then served from Next's cache until a plan changes (the plans' read is tagged, src/plans/revalidate.ts)
 * or 60 seconds pass. Nothing here reads the visitor: the header's account and the pricing table's
 * "Your plan" and upgrades come from requests of their own, and a failed checkout's notice from the
 * query in the browser, and the funnel's "pricing viewed" is a beacon the browser sends once the page is
 * idle: all of it the islands script's (`_islands/`), the page's only script (<ScriptFree />). A direct /storefront/... redirects to its public address (next.config.mjs).
 */
export const revalidate = 60
export const generateStaticParams = (): { page: string }[] => []

const PAGES = {
  home: { path: '/', title: PRODUCT_NAME, description: PRODUCT_DESCRIPTION },
  pricing: {
    path: '/pricing',
    title: `Pricing · ${PRODUCT_NAME}`,
    description:
      'Standard and Ultimate once, or Pro by the month or year. Every paid plan includes the whole kit and its updates.',
  },
} as const

type Props = { params: Promise<{ page: string }> }

const pageOf = (name: string) => (Object.hasOwn(PAGES, name) ? PAGES[name as keyof typeof PAGES] : null)

export const generateMetadata = async ({ params }: Props): Promise<Metadata> => {
  const page = pageOf((await params).page)
  if (!page) return {}
  return {
    title: page.title,
    description: page.description,
    alternates: { canonical: `${siteUrl()}${page.path === '/' ? '' : page.path}` },
  }
}

const Storefront = async ({ params }: Props) => {
  const { page } = await params
  if (!pageOf(page)) notFound()
  const plans = await activePlans()
  if (page === 'pricing') {
    return (
      <section className="pricing-page">
        <header className="page-intro">
          <h1>Pricing</h1>
          <p className="lead">Pay once for the kit and its updates, or subscribe for the features that keep growing.</p>
        </header>
        <PricingNotices />
        <PricingTable plans={plans} from="/pricing" headingLevel={2} />
        <span hidden data-island="pricing-view" data-page="pricing" />
        <ScriptFree />
      </section>
    )
  }
  return (
    <>
      <header className="hero">
        <h1>Ship your web application faster</h1>
        <p className="lead">One purchase, the whole starter kit: authentication, billing, an admin UI and more.</p>
        <p className="hero-actions">
          <a className="button" href="/pricing">
            See pricing
          </a>
          <a className="button button-secondary" href="/changelog">
            What is new
          </a>
        </p>
      </header>
      <section id="pricing" aria-labelledby="pricing-heading">
        <h2 id="pricing-heading">Pricing</h2>
        <PricingNotices />
        <PricingTable plans={plans} from="/" headingLevel={3} />
        <p>
          <a href="/pricing">Compare the plans on the pricing page</a>
        </p>
        <span hidden data-island="pricing-view" data-page="home" />
        <ScriptFree />
      </section>
    </>
  )
}

export default Storefront
