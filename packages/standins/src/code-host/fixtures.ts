import type { RestEndpointMethodTypes } from '@octokit/rest'

import fixtures from './github-fixtures.json' with { type: 'json' }

/**
 * Real GitHub objects recorded by octokit/fixtures, scenario add-and-remove-repository-collaborator
 * (commit 0bcb1cfb74dc95f37d5de5183d03f7281f950b18, MIT license): the invitation `PUT .../collaborators/:username`
 * answered with and a collaborator from `GET .../collaborators`. Every object the stand-in hands out
 * starts as a deep copy of one of them, so fields nobody here thought of still have GitHub's shape.
 */
export type GitHubInvitation = RestEndpointMethodTypes['repos']['addCollaborator']['response']['data']
export type GitHubCollaborator = RestEndpointMethodTypes['repos']['listCollaborators']['response']['data'][number]
export type GitHubAccount = NonNullable<GitHubInvitation['invitee']>
export type GitHubRepository = GitHubInvitation['repository']

/** The host the recorded links point at; the stand-in's API links point at itself instead. */
export const RECORDED_API_URL = 'https://api.github.com'

/**
 * Deep copies of the recorded objects. The recording predates fields GitHub added since (`expired`,
 * `role_name`, more permissions), so the types are asserted and the builders supply those fields.
 */
export const recordedInvitation = (): GitHubInvitation => structuredClone(fixtures.invitation) as GitHubInvitation

/** The recorded invitee; the recorded inviter differs only in what every copy overrides (login, id, links). */
export const recordedAccount = (): GitHubAccount => structuredClone(fixtures.invitation.invitee)

export const recordedCollaborator = (): GitHubCollaborator =>
  structuredClone(fixtures.collaborator) as GitHubCollaborator
