'use client'

import { useRouter } from 'next/navigation'
import { useEffect, useState } from 'react'

/** Delays between checks for the license: the webhook usually lands within seconds. */
const DELAYS_MS = [1_000, 2_000, 3_000, 5_000, 8_000, 13_000, 21_000]

/**
 * Re-renders the page (on the server) with a growing delay until it no longer waits, and says when
 * it gives up. Without JavaScript the page's <noscript> refresh does the same.
 */
export const Refresher = () => {
  const router = useRouter()
  const [attempt, setAttempt] = useState(0)
  useEffect(() => {
    if (attempt >= DELAYS_MS.length) return
    const timer = setTimeout(() => {
      router.refresh()
      setAttempt((value) => value + 1)
    }, DELAYS_MS[attempt])
    return () => clearTimeout(timer)
  }, [attempt, router])
  return attempt >= DELAYS_MS.length ? (
    <p role="status">
      This is taking longer than usual. Your license will be on your dashboard and in your inbox as soon as it is ready.
    </p>
  ) : (
    <p role="status" className="muted">
      Checking again in a moment…
    </p>
  )
}
