import type { License } from '../../../payload-types'
import type { HeldSeat } from '../../../teams/seats'
import { formatDate, LICENSE_STATUS_WORDS } from './words'

const statusWord = (status: string) =>
  (LICENSE_STATUS_WORDS[status as License['status']]?.label ?? status).toLowerCase()

/**
 * The seats a member holds on other people's licenses: whose license, since when. The license's key,
 * renewals, upgrades and its team stay with its owner; the member's downloads and features come
 * through the entitlements like an owner's.
 */
export const HeldSeatsSection = ({ seats }: { seats: HeldSeat[] }) => (
  <section className="card" id="team-seats" aria-labelledby="team-seats-heading" data-testid="team-seats">
    <h2 id="team-seats-heading">Team seats</h2>
    <p>
      Licenses shared with you. Their downloads and features are yours while you hold the seat; the owner looks after
      the license, its key and its billing.
    </p>
    <ul className="item-list">
      {seats.map((seat) => (
        <li key={seat.seatId} data-status={seat.licenseStatus}>
          <div className="item-main">
            <strong>{seat.planName} license</strong>, shared with you by {seat.ownerEmail ?? 'its owner'}
            {seat.claimedAt ? `, joined ${formatDate(seat.claimedAt)}` : ''}.
            {seat.licenseStatus === 'active' ? null : (
              <p className="item-detail">
                The license is {statusWord(seat.licenseStatus)}, so it gives you nothing until its owner’s license is
                active again.
              </p>
            )}
          </div>
        </li>
      ))}
    </ul>
    <p className="muted">To leave a team, ask its owner to revoke your seat.</p>
  </section>
)
