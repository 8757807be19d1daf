/**
 * The header's account links. Pages stay cacheable for everyone (the storefront, the blog, the
 * changelog), so the account is asked for in the browser (`/api/users/me`, the session cookie) by the
 * account island (`_islands/account.ts`): signed-in visitors see their email, Dashboard and Sign out;
 * signed-out ones Sign in and Sign up. Until the answer comes, and for good in a browser without
 * JavaScript, the header shows a neutral "Your account" link (the dashboard, which asks a signed-out
 * visitor to sign in): never the wrong state. The island replaces the children; React, on the pages
 * that hydrate, leaves them alone (they are set as HTML, not rendered by React).
 */
export const AccountNav = () => (
  <span
    className="account-nav account-nav-pending"
    data-testid="account-nav"
    data-island="account"
    aria-busy="true"
    suppressHydrationWarning
    dangerouslySetInnerHTML={{ __html: '<a href="/dashboard">Your account</a>' }}
  />
)
