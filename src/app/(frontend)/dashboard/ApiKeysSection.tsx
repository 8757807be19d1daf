import { type ApiKeyView, MAX_LIVE_API_KEYS } from '../../../auth/api-keys'
import { revokeApiKeyAction } from './actions'
import { ApiKeyForm } from './ApiKeyForm'
import { ErrorBox, RowAction } from './parts'
import { formatDate } from './words'

type Props = { keys: ApiKeyView[]; canCreate: boolean; error?: string }

/**
 * Personal API keys (feature `api`): the live ones with a Revoke button each, and the form that makes a
 * new one. Keys made earlier stay listed, to be revoked, after the plan that opened them has ended.
 */
export const ApiKeysSection = ({ keys, canCreate, error }: Props) => (
  <section className="card" id="api-keys" aria-labelledby="api-keys-heading">
    <h2 id="api-keys-heading">API keys</h2>
    <p>
      A key acts as you on the download, repository access and license endpoints: send it as{' '}
      <code>Authorization: Bearer</code>. Keep it secret; revoke it here and it stops working at once.
    </p>
    <ErrorBox code={error} fallback="That key could not be revoked; please try again." />
    {keys.length === 0 ? (
      <div className="empty">
        <p>
          No keys yet. Create one for each script or server that downloads the kit, so you can revoke one without the
          others.
        </p>
      </div>
    ) : (
      <ul className="item-list" data-testid="api-keys">
        {keys.map((key) => (
          <li key={key.id}>
            <div className="item-main">
              <strong>{key.name}</strong> <code>{key.prefix}…</code>
              <p className="item-detail muted">
                Created {formatDate(key.createdAt)} ·{' '}
                {key.lastUsedAt ? `last used ${formatDate(key.lastUsedAt)}` : 'never used'}
              </p>
            </div>
            <RowAction
              action={revokeApiKeyAction}
              name="id"
              value={key.id}
              label="Revoke"
              description={`Revoke ${key.name}`}
            />
          </li>
        ))}
      </ul>
    )}
    {canCreate ? (
      <>
        <h3>Create a key</h3>
        <ApiKeyForm full={keys.length >= MAX_LIVE_API_KEYS} />
      </>
    ) : (
      <p className="muted">These keys do nothing while your plan does not include API access.</p>
    )}
  </section>
)
