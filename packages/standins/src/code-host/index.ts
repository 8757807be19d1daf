/**
 * The code-host stand-in: a GitHub-compatible HTTP server for integration tests and offline development
 * of the repository-collaborator feature. The real `@octokit/rest` talks to it over HTTP; its page
 * lets a developer accept an invitation in the browser.
 */
export { startCodeHostStandIn } from './server'

export type { CodeHostStandIn } from './types'
