import { getPayloadClient } from '../../_lib/session'
import { runtimeOf } from '../../../config/runtime'

/** "Continue with GitHub / Google", for the providers this server has credentials for (or the development stand-in). */
export const OAuthButtons = async ({ next }: { next?: string }) => {
  const payload = await getPayloadClient()
  const { oauth } = runtimeOf(payload, 'accounts')
  if (!oauth.github && !oauth.google) return null
  const nextQuery = next ? `?next=${encodeURIComponent(next)}` : ''
  return (
    <div className="oauth">
      <p className="divider">
        <span>or continue with</span>
      </p>
      <div className="oauth-buttons">
        {oauth.github ? (
          <a className="button button-secondary" href={`/api/auth/oauth/github${nextQuery}`}>
            GitHub
          </a>
        ) : null}
        {oauth.google ? (
          <a className="button button-secondary" href={`/api/auth/oauth/google${nextQuery}`}>
            Google
          </a>
        ) : null}
      </div>
    </div>
  )
}
