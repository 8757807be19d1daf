import type { Metadata } from 'next'
import type React from 'react'

import { PRODUCT_DESCRIPTION, PRODUCT_NAME } from '../../config/product'
import { ISLANDS_PATH } from '../../server/script-free'
import { AccountNav } from './_components/AccountNav'
import './styles.css'

export const metadata: Metadata = {
  title: PRODUCT_NAME,
  description: PRODUCT_DESCRIPTION,
}

const RootLayout = ({ children }: { children: React.ReactNode }) => (
  <html lang="en">
    <body>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="site-header">
        <a href="/" className="brand">
          {PRODUCT_NAME}
        </a>
        <nav aria-label="Site">
          <a href="/pricing">Pricing</a>
          <a href="/blog">Blog</a>
          <a href="/changelog">Changelog</a>
          <AccountNav />
        </nav>
      </header>
      <main id="main">{children}</main>
      <footer className="site-footer">
        <p>
          {PRODUCT_NAME} · <a href="/pricing">Pricing</a> · <a href="/blog">Blog</a> ·{' '}
          <a href="/changelog">Changelog</a> · <a href="/blog/rss.xml">RSS</a>
        </p>
      </footer>
      {/* The islands (the account, the visitor's plans, downloads): the one script of a public page. */}
      <script async src={ISLANDS_PATH} />
    </body>
  </html>
)

export default RootLayout
