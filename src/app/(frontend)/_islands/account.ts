import { currentAccount, element, islands } from './dom'

/**
 * The header's account links (`data-island="account"`). The page is one cached HTML for everyone, so
 * it shows a neutral "Your account" link (the dashboard, which asks a signed-out visitor to sign in),
 * and for good in a browser without JavaScript. This asks for the account and shows the email,
 * Dashboard and Sign out (a plain form to `/auth/sign-out`) or Sign in and Sign up.
 */
export const accountNav = async () => {
  const navs = islands('account')
  if (navs.length === 0) return
  const account = await currentAccount()
  for (const nav of navs) {
    const links = account
      ? [
          element('span', { className: 'account-email', text: account.email, attributes: { title: account.email } }),
          element('a', { text: 'Dashboard', attributes: { href: '/dashboard' } }),
          element(
            'form',
            { className: 'inline-form', attributes: { method: 'post', action: '/auth/sign-out' } },
            element('button', { className: 'link', text: 'Sign out', attributes: { type: 'submit' } }),
          ),
        ]
      : [
          element('a', { text: 'Sign in', attributes: { href: '/sign-in' } }),
          element('a', { className: 'button button-small', text: 'Sign up', attributes: { href: '/sign-up' } }),
        ]
    nav.replaceChildren(...links)
    nav.classList.remove('account-nav-pending')
    nav.removeAttribute('aria-busy')
  }
}
