'use client'

import { usePathname } from 'next/navigation'
import { useEffect, useState } from 'react'

import { signOut } from '../_actions/sign-out'
import { usePageRestores } from './page-restores'

type Account = { email: string } | null

/**
 * The header's account links. Pages stay cacheable for everyone (the storefront, the blog, the
 * changelog), so the account is asked for in the browser (`/api/users/me`, the session cookie):
 * signed-in visitors see their email, Dashboard and Sign out; signed-out ones Sign in and Sign up.
 * Until the answer comes, and for good in a browser without JavaScript, the header shows a neutral
 * "Your account" link (the dashboard, which asks a signed-out visitor to sign in): never the wrong
 * state. Asked again on every navigation: signing in or out is a server action that redirects within
 * the app, which keeps this layout (and this component) mounted.
 */
export const AccountNav = () => {
  const pathname = usePathname()
  const restores = usePageRestores()
  const [account, setAccount] = useState<Account | undefined>(undefined)
  useEffect(() => {
    let live = true
    fetch('/api/users/me', { credentials: 'same-origin', headers: { accept: 'application/json' } })
      .then((response) =>
        response.ok ? (response.json() as Promise<{ user?: { email?: string } | null }>) : { user: null },
      )
      .then((body) => {
        if (live) setAccount(body.user?.email ? { email: body.user.email } : null)
      })
      .catch(() => {
        if (live) setAccount(null)
      })
    return () => {
      live = false
    }
  }, [pathname, restores])
  if (account) {
    return (
      <span className="account-nav" data-testid="account-nav">
        <span className="account-email" title={account.email}>
          {account.email}
        </span>
        <a href="/dashboard">Dashboard</a>
        <form action={signOut} className="inline-form">
          <button type="submit" className="link">
            Sign out
          </button>
        </form>
      </span>
    )
  }
  if (account === undefined) {
    return (
      <span className="account-nav account-nav-pending" data-testid="account-nav" aria-busy="true">
        <a href="/dashboard">Your account</a>
      </span>
    )
  }
  return (
    <span className="account-nav" data-testid="account-nav">
      <a href="/sign-in">Sign in</a>
      <a href="/sign-up" className="button button-small">
        Sign up
      </a>
    </span>
  )
}
