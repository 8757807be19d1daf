'use client'

import { useEffect, useState } from 'react'

/**
 * A number that grows each time the browser shows this page again from its back-forward cache (the
 * public pages may be kept there). What a component asked the server for on the page's first load
 * (the session, the visitor's plans) may have changed since: signed out in another page, bought a plan.
 * Put it in the effect's dependencies to ask again.
 */
export const usePageRestores = (): number => {
  const [restores, setRestores] = useState(0)
  useEffect(() => {
    const onPageShow = (event: PageTransitionEvent) => {
      if (event.persisted) setRestores((count) => count + 1)
    }
    window.addEventListener('pageshow', onPageShow)
    return () => window.removeEventListener('pageshow', onPageShow)
  }, [])
  return restores
}
