import type { SeatView } from '../../../teams/seats'
import { assignSeatAction, revokeSeatAction } from './actions'
import type { Team } from './data'
import { ConfirmedRowAction, ErrorBox, type SectionOutcome } from './parts'
import { formatDate, formatDateTime, INVALID_EMAIL, INVALID_EMAIL_SENTENCE, licenseHeading, waitInWords } from './words'

const isExpired = (member: SeatView, now: number) =>
  member.expiresAt !== null && new Date(member.expiresAt).getTime() <= now

/** "Joined Nov 27, 2026", or when it was sent and until when its link works (or that it no longer does). */
const memberDetail = (member: SeatView, now: number) => {
  if (member.status === 'claimed') return `Joined ${formatDate(member.claimedAt)}`
  if (isExpired(member, now))
    return `Invited ${formatDate(member.createdAt)}. The link expired: cancel this invitation and send a new one.`
  return `Invited ${formatDate(member.createdAt)}. The link works until ${formatDateTime(member.expiresAt)}.`
}

const MemberRow = ({ licenseId, member, now }: { licenseId: number; member: SeatView; now: number }) => {
  const joined = member.status === 'claimed'
  return (
    <li data-status={member.status}>
      <div className="item-main">
        <strong>{member.email}</strong>{' '}
        <span className={joined ? 'seat-badge seat-badge-joined' : 'seat-badge'}>{joined ? 'Joined' : 'Invited'}</span>
        <p className="item-detail muted">{memberDetail(member, now)}</p>
      </div>
      <ConfirmedRowAction
        action={revokeSeatAction}
        fields={{ license: licenseId, seat: member.id }}
        label={joined ? 'Revoke' : 'Cancel invitation'}
        description={joined ? `Revoke the seat of ${member.email}` : `Cancel invitation of ${member.email}`}
        consequence={
          joined
            ? `${member.email} loses this license’s downloads and features at once, and the seat is free for someone else.`
            : 'The link in the invitation stops working, and the seat is free for someone else.'
        }
        confirmLabel={joined ? 'Yes, revoke the seat' : 'Yes, cancel the invitation'}
      />
    </li>
  )
}

/**
 * A license that covers several people (`seats` > 1), for its owner: who holds a seat, the form that
 * invites someone by email and a Revoke button per member (a confirmation first). Plain forms posting
 * to the server actions, so it works without JavaScript.
 */
export const TeamSection = ({ team, several, outcome }: { team: Team; several: boolean; outcome: SectionOutcome }) => {
  const { license, seats, used, owner, members, readAt: now } = team
  const invited = outcome.invited === undefined ? null : members.find((member) => member.id === outcome.invited)
  return (
    <section
      className="card"
      id={`team-${license.id}`}
      aria-labelledby={`team-${license.id}-heading`}
      data-testid="team"
    >
      <h2 id={`team-${license.id}-heading`}>{licenseHeading('Team', license, several)}</h2>
      <p>
        <strong data-testid="seats-used">
          {used} of {seats} seats used.
        </strong>{' '}
        Each person on the team gets the license’s downloads and features with an account of their own; they do not see
        its key or your billing.
      </p>
      {invited ? (
        <p role="status" className="notice" data-testid="team-notice">
          We emailed a link to {invited.email}. It works for 7 days, only for an account with that address.
        </p>
      ) : outcome.done ? (
        <p role="status" className="notice" data-testid="team-notice">
          Done: the seat is free again. Its invitation link no longer works, and anyone who held it has lost the
          license’s downloads and features.
        </p>
      ) : null}
      <ErrorBox
        code={outcome.error}
        fallback={outcome.error === INVALID_EMAIL ? INVALID_EMAIL_SENTENCE : 'That did not work; please try again.'}
        sentence={
          outcome.error === 'rate_limited' && outcome.retry !== null
            ? `You have sent many invitations today. Try again in ${waitInWords(outcome.retry)}.`
            : null
        }
      />
      <ul className="item-list" data-testid="team-members">
        <li data-status="owner">
          <div className="item-main">
            <strong>{owner.email}</strong> <span className="seat-badge">You</span>
            <p className="item-detail muted">The license’s owner: you hold its first seat, its key and its billing.</p>
          </div>
        </li>
        {members.map((member) => (
          <MemberRow key={member.id} licenseId={license.id} member={member} now={now} />
        ))}
      </ul>
      <h3>Invite someone</h3>
      {license.status !== 'active' ? (
        <p className="muted">This license is not active, so its seats cannot be assigned.</p>
      ) : used >= seats ? (
        <p className="muted">Every seat is taken. Revoke a seat, or cancel an invitation, to invite someone else.</p>
      ) : (
        <>
          <p className="muted">
            We email them a link that works for 7 days, only for an account with that address. They can create the
            account from the link.
          </p>
          <form action={assignSeatAction} className="inline-fields">
            <input type="hidden" name="license" value={license.id} />
            <label>
              Their email address
              <input type="email" name="email" required maxLength={254} autoComplete="off" />
            </label>
            <button type="submit">Send invitation</button>
          </form>
        </>
      )}
    </section>
  )
}
