import type { Metadata } from 'next'
import type React from 'react'

import './styles.css'

export const metadata: Metadata = {
  title: 'Starter Kit',
  description: 'A production-ready starter kit for web applications.',
}

const RootLayout = ({ children }: { children: React.ReactNode }) => (
  <html lang="en">
    <body>
      <header className="site-header">
        <a href="/" className="brand">
          Starter Kit
        </a>
        <nav>
          <a href="/#pricing">Pricing</a>
          <a href="/blog">Blog</a>
          <a href="/changelog">Changelog</a>
          <a href="/dashboard">Dashboard</a>
          <a href="/sign-in">Sign in</a>
        </nav>
      </header>
      <main>{children}</main>
    </body>
  </html>
)

export default RootLayout
