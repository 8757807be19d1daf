import type { ActivationView } from '../../../licensing/activation-store'
import { DEACTIVATIONS_PER_DAY } from '../../../teams/activations'
import { CopyButton } from '../_components/CopyButton'
import { deactivateInstallation } from './actions'
import type { Installations } from './data'
import { ConfirmedRowAction, ErrorBox, type SectionOutcome } from './parts'
import { formatDate, licenseHeading, waitInWords } from './words'

/** Enough of a fingerprint to tell installations apart at a glance; the whole one is in the title and the copy button. */
const shortFingerprint = (fingerprint: string) =>
  fingerprint.length > 16 ? `${fingerprint.slice(0, 12)}…` : fingerprint

const nameOf = (activation: ActivationView) => activation.label ?? 'Unnamed installation'

const InstallationRow = ({ licenseId, activation }: { licenseId: number; activation: ActivationView }) => (
  <li>
    <div className="item-main">
      <strong>{nameOf(activation)}</strong>
      <p className="item-detail fingerprint">
        Fingerprint <code title={activation.fingerprint}>{shortFingerprint(activation.fingerprint)}</code>{' '}
        <CopyButton text={activation.fingerprint} label="Copy fingerprint" />
      </p>
      <p className="item-detail muted">
        Activated {formatDate(activation.createdAt)} ·{' '}
        {activation.lastValidatedAt ? `last checked ${formatDate(activation.lastValidatedAt)}` : 'not checked since'}
      </p>
    </div>
    <ConfirmedRowAction
      action={deactivateInstallation}
      fields={{ license: licenseId, activation: activation.id }}
      label="Deactivate"
      description={`Deactivate ${nameOf(activation)}`}
      consequence={`The app there stops working with this license until it is activated again. This counts as one of the license’s ${DEACTIVATIONS_PER_DAY} deactivations a day.`}
      confirmLabel="Yes, deactivate"
    />
  </li>
)

/**
 * Where a license's key is activated (the kit's apps activate themselves with the key), for its owner:
 * how many of the plan's places are used, each installation with a Deactivate button (a confirmation
 * first, since deactivations are limited), and why a Deactivate was refused, with when to try again.
 */
export const InstallationsSection = ({
  installations,
  several,
  outcome,
}: {
  installations: Installations
  several: boolean
  outcome: SectionOutcome
}) => {
  const { license, limit, activations } = installations
  const count = activations.length
  return (
    <section
      className="card"
      id={`installations-${license.id}`}
      aria-labelledby={`installations-${license.id}-heading`}
      data-testid="installations"
    >
      <h2 id={`installations-${license.id}-heading`}>{licenseHeading('Installations', license, several)}</h2>
      <p>
        <strong data-testid="installations-used">
          {limit === null ? `${count} in use; this plan allows any number.` : `${count} of ${limit} in use.`}
        </strong>{' '}
        Your apps activate the license key where they run; deactivate one here to free its place for another.
      </p>
      <p className="muted">
        A license can be deactivated {DEACTIVATIONS_PER_DAY} times a day, here or by your apps, so that its limit cannot
        be worked around by moving it from machine to machine.
      </p>
      {outcome.done ? (
        <p role="status" className="notice" data-testid="installations-notice">
          Deactivated: its place is free for another installation.
        </p>
      ) : null}
      <ErrorBox
        code={outcome.error}
        fallback="That installation could not be deactivated; please try again."
        sentence={
          outcome.error === 'deactivation_limit'
            ? `This license has been deactivated ${DEACTIVATIONS_PER_DAY} times in the last day, the most there can be.${outcome.retry === null ? ' Try again tomorrow' : ` Try again in ${waitInWords(outcome.retry)}`}, or contact support.`
            : null
        }
      />
      {count === 0 ? (
        <div className="empty">
          <p>No installation is activated yet: it appears here the first time an app starts with the license key.</p>
        </div>
      ) : (
        <ul className="item-list" data-testid="activations">
          {activations.map((activation) => (
            <InstallationRow key={activation.id} licenseId={license.id} activation={activation} />
          ))}
        </ul>
      )}
    </section>
  )
}
