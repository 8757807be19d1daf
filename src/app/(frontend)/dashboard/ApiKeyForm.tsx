'use client'

import { useActionState } from 'react'

import { errorSentence } from '../../../http/error-sentences'
import { CopyButton } from '../_components/CopyButton'
import { type ApiKeyFormState, createApiKeyAction } from './actions'
import { ErrorBox } from './parts'

const NOTHING_YET: ApiKeyFormState = { created: null, error: null }

/**
 * Create an API key. The new key lives only in this form's state (the action's response): shown once,
 * never in a URL, a cookie or the database (which keeps its hash). Without JavaScript the form still posts and the
 * page comes back with the same state. `full` (the most live keys there can be) keeps the new key shown
 * but hides the form.
 */
export const ApiKeyForm = ({ full }: { full: boolean }) => {
  const [state, formAction, pending] = useActionState(createApiKeyAction, NOTHING_YET)
  return (
    <>
      {state.created ? (
        <div className="notice new-key" role="status" data-testid="new-api-key">
          <p>
            Your new key “{state.created.name}” is below. Copy it now: we keep only a hash of it, so it cannot be shown
            again.
          </p>
          <p className="license-key">
            <code>{state.created.key}</code> <CopyButton text={state.created.key} label="Copy key" />
          </p>
        </div>
      ) : null}
      <ErrorBox code={state.error} />
      {full ? (
        <p className="muted">{errorSentence('api_key_limit_reached')}</p>
      ) : (
        <form action={formAction} className="inline-fields">
          <label>
            Key name
            <input type="text" name="name" required maxLength={60} placeholder="e.g. CI server" autoComplete="off" />
          </label>
          <button type="submit" disabled={pending}>
            {pending ? 'Creating…' : 'Create a key'}
          </button>
        </form>
      )}
    </>
  )
}
