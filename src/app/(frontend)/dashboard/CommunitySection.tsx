import type { GrantState } from '../../../community/grant-states'
import { disconnectDiscordAction } from './actions'
import { ErrorBox } from './parts'
import { formatDate } from './words'

type CommunityView = {
  entitled: boolean
  link: { username: string | null; linkedAt: string | null } | null
  /** The roles given on the linked account, with where each stands. */
  roles: { state: GrantState; lastError: string | null }[]
}

type Props = {
  community: CommunityView
  productName: string
  /** `?community=`: what the last connect or disconnect did, or why it was refused. */
  outcome?: string
}

const ROLE_WORDS: Record<GrantState, string> = {
  granted: 'in place',
  pending: 'on its way',
  failed: 'not given yet',
}

/**
 * The Discord community (docs/COMMUNITY.md): Join (a link to Discord's consent page: no JavaScript needed),
 * the connected account and its roles, and Disconnect. Shown only where Discord is configured, to a
 * customer whose licenses give a role or who connected an account before.
 */
export const CommunitySection = ({ community, productName, outcome }: Props) => {
  const { entitled, link, roles } = community
  const notInServer = roles.some((role) => role.lastError === 'not_in_guild')
  return (
    <section className="card" id="community" aria-labelledby="community-heading">
      <h2 id="community-heading">Discord community</h2>
      {outcome === 'joined' ? (
        <p role="status" className="notice" data-testid="community-notice">
          You are in: Discord is connected. Open Discord to find the {productName} server and its buyers’ channels.
        </p>
      ) : outcome === 'disconnected' ? (
        <p role="status" className="notice" data-testid="community-notice">
          Discord is disconnected: the roles your licenses gave are being taken off that account.
        </p>
      ) : (
        <ErrorBox code={outcome} />
      )}
      {link ? (
        <>
          <p data-testid="community-status">
            Connected as <strong>{link.username ?? 'your Discord account'}</strong>
            {link.linkedAt ? ` since ${formatDate(link.linkedAt)}` : ''}.{' '}
            {roles.length > 0
              ? `Your buyer ${roles.length === 1 ? 'role is' : 'roles are'} ${[...new Set(roles.map((role) => ROLE_WORDS[role.state]))].join(', ')}.`
              : entitled
                ? 'Your role is on its way.'
                : 'Your licenses include no community role now.'}
          </p>
          {notInServer ? (
            <p className="muted">
              You are not in the server any more: join again to get your role back.{' '}
              <a href="/api/community/discord/connect">Join again</a>
            </p>
          ) : null}
          <form action={disconnectDiscordAction}>
            <button type="submit" className="button-secondary" data-testid="disconnect-discord">
              Disconnect Discord
            </button>
          </form>
        </>
      ) : !entitled ? null : (
        <>
          <p>
            Your license includes the {productName} Discord server, with the buyers’ role. Connect your Discord account:
            we add you to the server and give you the role.
          </p>
          <a className="button" href="/api/community/discord/connect" data-testid="join-discord">
            Join the Discord community
          </a>
        </>
      )}
    </section>
  )
}
