const CALLOUT_KINDS = ['info', 'tip', 'warning'] as const
type CalloutKind = (typeof CALLOUT_KINDS)[number]

const TITLES: Record<CalloutKind, string> = { info: 'Note', tip: 'Tip', warning: 'Warning' }
const ICONS: Record<CalloutKind, string> = { info: 'i', tip: '✓', warning: '!' }

/** The Callout block: one paragraph of plain text with a kind (info, tip, warning). */
export const Callout = ({ kind, text }: { kind?: string | null; text?: string | null }) => {
  const safeKind: CalloutKind = (CALLOUT_KINDS as readonly string[]).includes(kind ?? '')
    ? (kind as CalloutKind)
    : 'info'
  return (
    <aside className={`callout callout-${safeKind}`} role="note" aria-label={TITLES[safeKind]}>
      <span className="callout-icon" aria-hidden="true">
        {ICONS[safeKind]}
      </span>
      <div>
        <p className="callout-title">{TITLES[safeKind]}</p>
        <p>{text ?? ''}</p>
      </div>
    </aside>
  )
}
