'use client'

import { useState } from 'react'

/** Copies `text` to the clipboard and says so for two seconds; without JavaScript the text stays selectable. */
export const CopyButton = ({ text, label = 'Copy' }: { text: string; label?: string }) => {
  const [copied, setCopied] = useState(false)
  return (
    <button
      type="button"
      className="button button-secondary button-small"
      aria-live="polite"
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(() => {
          setCopied(true)
          setTimeout(() => setCopied(false), 2000)
        })
      }}
    >
      {copied ? 'Copied' : label}
    </button>
  )
}
