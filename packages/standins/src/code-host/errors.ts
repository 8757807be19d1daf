import http from 'node:http'

export type ValidationError = { resource: string; code: string; field?: string; message?: string }

/** GitHub's error body; Octokit's RequestError message is `message` (with `errors`) and `documentation_url`. */
export type GitHubErrorBody = {
  message: string
  documentation_url: string
  status: string
  errors?: ValidationError[]
}

const REST_DOCS = 'https://docs.github.com/rest'
const COLLABORATORS_DOCS = `${REST_DOCS}/collaborators/collaborators`
const INVITATIONS_DOCS = `${REST_DOCS}/collaborators/invitations`
const RATE_LIMIT_DOCS = `${REST_DOCS}/using-the-rest-api/rate-limits-for-the-rest-api`

/** Where GitHub's error bodies send the reader, per endpoint. */
export const DOCS = {
  rest: REST_DOCS,
  addCollaborator: `${COLLABORATORS_DOCS}#add-a-repository-collaborator`,
  checkCollaborator: `${COLLABORATORS_DOCS}#check-if-a-user-is-a-repository-collaborator`,
  getPermission: `${COLLABORATORS_DOCS}#get-repository-permissions-for-a-user`,
  listCollaborators: `${COLLABORATORS_DOCS}#list-repository-collaborators`,
  removeCollaborator: `${COLLABORATORS_DOCS}#remove-a-repository-collaborator`,
  listInvitations: `${INVITATIONS_DOCS}#list-repository-invitations`,
  deleteInvitation: `${INVITATIONS_DOCS}#delete-a-repository-invitation`,
  acceptInvitation: `${INVITATIONS_DOCS}#accept-a-repository-invitation`,
} as const

const errorBody = (status: number, message: string, documentationUrl: string): GitHubErrorBody => ({
  message,
  documentation_url: documentationUrl,
  status: String(status),
})

/** Thrown anywhere in the stand-in; the HTTP layer answers with its status and body. */
export class GitHubApiError extends Error {
  override name = 'GitHubApiError'
  constructor(
    readonly status: number,
    readonly body: GitHubErrorBody,
  ) {
    super(body.message)
  }
}

/** Also GitHub's answer for a repository the token cannot see, so private repositories stay secret. */
export const notFound = (documentationUrl: string = DOCS.rest) =>
  new GitHubApiError(404, errorBody(404, 'Not Found', documentationUrl))

export const validationFailed = (errors: ValidationError[], documentationUrl: string) =>
  new GitHubApiError(422, { ...errorBody(422, 'Validation Failed', documentationUrl), errors })

export const badCredentials = () => errorBody(401, 'Bad credentials', DOCS.rest)

export const requiresAuthentication = () => errorBody(401, 'Requires authentication', DOCS.rest)

export const serverError = () => errorBody(500, 'Server Error', DOCS.rest)

export const problemsParsingJson = () => errorBody(400, 'Problems parsing JSON', DOCS.rest)

const header = (headers: Record<string, string>, name: string): string | undefined =>
  Object.entries(headers).find(([candidate]) => candidate.toLowerCase() === name)?.[1]

/**
 * The body an injected failure answers with when its rule brings none: what GitHub sends for that
 * status. A 403 is a rate limit when the rule's headers say so, as clients tell them apart that way.
 */
export const failureBody = (status: number, headers: Record<string, string>, userId: number): GitHubErrorBody => {
  if (status === 403 && header(headers, 'x-ratelimit-remaining') === '0') {
    return errorBody(status, `API rate limit exceeded for user ID ${userId}.`, `${RATE_LIMIT_DOCS}#primary-rate-limit`)
  }
  if (status === 429 || (status === 403 && header(headers, 'retry-after') !== undefined)) {
    return errorBody(
      status,
      'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
      `${RATE_LIMIT_DOCS}#about-secondary-rate-limits`,
    )
  }
  if (status === 403) return errorBody(status, 'Must have admin rights to Repository.', DOCS.addCollaborator)
  if (status === 401) return badCredentials()
  if (status === 404) return errorBody(status, 'Not Found', DOCS.rest)
  if (status === 422) return { ...errorBody(status, 'Validation Failed', DOCS.rest), errors: [] }
  if (status >= 500) return errorBody(status, 'Server Error', DOCS.rest)
  return errorBody(status, http.STATUS_CODES[status] ?? 'Error', DOCS.rest)
}
