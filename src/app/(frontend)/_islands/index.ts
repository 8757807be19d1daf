import { accountNav } from './account'
import { forgetAccount } from './dom'
import { downloadButtons } from './downloads'
import { checkoutError, pricingViewBeacon, visitorPricing } from './pricing'

/**
 * The public pages' one script (docs/PUBLIC_PAGES.md): small islands on server-rendered HTML, loaded
 * `async` and run once the document is parsed. Whatever the visitor is (signed in or not, owner of a
 * plan or not) is asked for here, so every page stays one cached HTML for everyone; without JavaScript
 * each page works as the anonymous visitor's.
 */
const start = () => {
  void accountNav()
  void visitorPricing()
  void downloadButtons()
  checkoutError()
  pricingViewBeacon()
  // Back or Forward may show the page from the back-forward cache: the session or the visitor's plans
  // may have changed since (signed out in another tab, bought a plan). Ask again.
  window.addEventListener('pageshow', (event) => {
    if (!event.persisted) return
    forgetAccount()
    void accountNav()
    void visitorPricing()
  })
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, { once: true })
else start()
