import Link from 'next/link'

/** Any unknown path of the site (see [...missing]/page.tsx), in the site's layout. */
const NotFound = () => (
  <section className="not-found">
    <p className="eyebrow">404</p>
    <h1>This page does not exist</h1>
    <p className="lead">The link may be old, or the address mistyped.</p>
    <p className="hero-actions">
      <Link className="button" href="/">
        Go to the home page
      </Link>
      <Link className="button button-secondary" href="/pricing">
        See pricing
      </Link>
    </p>
  </section>
)

export default NotFound
