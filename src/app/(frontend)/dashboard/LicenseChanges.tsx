import { renewLicense, upgradeLicense } from './actions'
import { type UpgradeOffer, upgradeLabel } from './offers'

/** Which license a button changes, for screen readers when there are several ("your Standard license ending in 7F3K"). */
export type ChangedLicense = { id: number; key: string; planName: string }

const whose = (license: ChangedLicense) => `your ${license.planName} license ending in ${license.key.slice(-4)}`

/**
 * A license's Renew updates and Upgrade buttons: plain forms posting to the server actions, so they
 * work without JavaScript. Each button's accessible name starts with its visible words.
 */
export const LicenseChanges = ({
  license,
  renew,
  upgrades,
}: {
  license: ChangedLicense
  renew: boolean
  upgrades: UpgradeOffer[]
}) =>
  renew || upgrades.length > 0 ? (
    <div className="license-changes">
      {renew ? (
        <form action={renewLicense}>
          <input type="hidden" name="license" value={license.id} />
          <input type="hidden" name="from" value="/dashboard" />
          <button
            type="submit"
            className="button-secondary button-small"
            aria-label={`Renew updates of ${whose(license)}`}
          >
            Renew updates
          </button>
        </form>
      ) : null}
      {upgrades.map((offer) => (
        <form key={offer.to.slug} action={upgradeLicense}>
          <input type="hidden" name="license" value={license.id} />
          <input type="hidden" name="plan" value={offer.to.slug} />
          <input type="hidden" name="from" value="/dashboard" />
          <button type="submit" className="button-small" aria-label={`${upgradeLabel(offer)}: ${whose(license)}`}>
            {upgradeLabel(offer)}
          </button>
        </form>
      ))}
    </div>
  ) : null
