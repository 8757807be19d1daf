'use client'

import Link from 'next/link'

/**
 * A page that failed on the server (the database or the processor unreachable, a bug), in the site's
 * layout: what happened in words, a way to try again, and the reference Next logged it under (never
 * the error's message, which may hold internals).
 */
const PageError = ({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) => (
  <section className="not-found" role="alert">
    <p className="eyebrow">Something went wrong</p>
    <h1>This page could not be shown</h1>
    <p className="lead">It is on our side, not yours. Please try again in a moment.</p>
    <p className="hero-actions">
      <button type="button" onClick={() => reset()}>
        Try again
      </button>
      <Link className="button button-secondary" href="/">
        Go to the home page
      </Link>
    </p>
    {error.digest ? <p className="muted">Reference: {error.digest}</p> : null}
  </section>
)

export default PageError
