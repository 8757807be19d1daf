import { Octokit } from '@octokit/rest'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

import { startCodeHostStandIn, type CodeHostStandIn } from '../src/code-host'

const TOKEN = 'ghp_standin_0123456789'
const OWNER = 'kit-author'
const REPO = 'premium-kit'
const repo = { owner: OWNER, repo: REPO }
const DAY_MS = 24 * 60 * 60 * 1000

let standIn: CodeHostStandIn
let now: Date
let octokit: Octokit

/** Octokit logs every failed request; the failures here are expected ones. */
const quiet = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined }

const client = (token = TOKEN) =>
  new Octokit({ auth: token, baseUrl: standIn.url, request: { retries: 0 }, log: quiet })

beforeEach(async () => {
  now = new Date('2025-03-01T12:00:00Z')
  standIn = await startCodeHostStandIn({ token: TOKEN, owner: OWNER, repo: REPO, now: () => now })
  octokit = client()
})

afterEach(async () => {
  await standIn.close()
})

const invite = (username: string, permission?: string) =>
  octokit.rest.repos.addCollaborator({ ...repo, username, ...(permission ? { permission } : {}) })

describe('inviting a collaborator', () => {
  it('answers 201 with an invitation shaped like GitHub’s', async () => {
    const response = await invite('kit-user-a')

    expect(response.status).toBe(201)
    expect(response.data).toMatchObject({
      invitee: { login: 'kit-user-a', type: 'User' },
      inviter: { login: OWNER },
      repository: { name: REPO, full_name: `${OWNER}/${REPO}`, private: true, owner: { login: OWNER } },
      permissions: 'write',
      created_at: '2025-03-01T12:00:00Z',
      expired: false,
      url: `${standIn.url}/user/repository_invitations/${response.data.id}`,
      html_url: `${standIn.url}/${OWNER}/${REPO}/invitations`,
    })
    expect(response.data.repository.collaborators_url).toBe(
      `${standIn.url}/repos/${OWNER}/${REPO}/collaborators{/collaborator}`,
    )
    expect(response.headers.location).toBe(response.data.url)
    expect(standIn.state.invitations.get(response.data.id)).toMatchObject({ login: 'kit-user-a', permissions: 'write' })
  })

  it('carries GitHub’s headers', async () => {
    const response = await invite('kit-user-a')

    expect(response.headers['x-github-request-id']).toMatch(
      /^[0-9A-F]{4}:[0-9A-F]{5}:[0-9A-F]{7}:[0-9A-F]{7}:[0-9A-F]{8}$/,
    )
    expect(response.headers['x-ratelimit-limit']).toBe('5000')
    expect(Number(response.headers['x-ratelimit-remaining'])).toBeLessThan(5000)
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8')
  })

  it('answers a pending invitation again, and 204 once it is accepted', async () => {
    const first = await invite('kit-user-a')
    const again = await invite('KIT-USER-A')
    expect(again.status).toBe(201)
    expect(again.data.id).toBe(first.data.id)
    expect(standIn.state.invitations.size).toBe(1)

    standIn.accept('kit-user-a')
    expect(standIn.state.invitations.size).toBe(0)
    expect(standIn.state.collaborators).toEqual(new Set(['kit-user-a']))

    const afterAccepting = await invite('kit-user-a')
    expect(afterAccepting.status).toBe(204)
  })

  it('maps the permission to the invitation’s and validates it', async () => {
    const response = await invite('kit-user-b', 'pull')
    expect(response.data.permissions).toBe('read')

    await expect(invite('kit-user-a', 'superuser')).rejects.toMatchObject({
      name: 'HttpError',
      status: 422,
      response: { data: { message: 'Validation Failed', errors: [expect.objectContaining({ field: 'permission' })] } },
    })
    expect(standIn.state.invitations.size).toBe(1)
  })

  it('refuses to invite the owner, as GitHub does', async () => {
    await expect(invite(OWNER)).rejects.toMatchObject({
      status: 422,
      message: expect.stringContaining('Repository owner cannot be a collaborator'),
    })
  })

  it('answers 404 for an account that does not exist, until it does', async () => {
    await expect(invite('nobody-here')).rejects.toMatchObject({
      name: 'HttpError',
      status: 404,
      response: { data: { message: 'Not Found', documentation_url: expect.stringContaining('docs.github.com') } },
    })

    standIn.addUser('Nobody-Here')
    const response = await invite('nobody-here')
    expect(response.data.invitee?.login).toBe('Nobody-Here')
  })
})

describe('people who already have access (the seller’s maintainers)', () => {
  it('seeded at start: checked 204, listed with their role; inviting one answers 204 with no body and sends nothing', async () => {
    const seeded = await startCodeHostStandIn({
      token: TOKEN,
      owner: OWNER,
      repo: REPO,
      users: [],
      collaborators: [{ login: 'kit-maintainer', role: 'maintain' }, 'kit-lead'],
    })
    try {
      const client = new Octokit({ auth: TOKEN, baseUrl: seeded.url, request: { retries: 0 }, log: quiet })
      expect((await client.rest.repos.checkCollaborator({ ...repo, username: 'Kit-Maintainer' })).status).toBe(204)
      const listed = await client.rest.repos.listCollaborators(repo)
      expect(listed.data.map((collaborator) => [collaborator.login, collaborator.role_name])).toEqual([
        [OWNER, 'admin'],
        ['kit-maintainer', 'maintain'],
        ['kit-lead', 'maintain'],
      ])

      const raw = await fetch(`${seeded.url}/repos/${OWNER}/${REPO}/collaborators/kit-maintainer`, {
        method: 'PUT',
        headers: { authorization: `token ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ permission: 'maintain' }),
      })
      expect(raw.status).toBe(204)
      expect(await raw.text()).toBe('')
      expect(seeded.state.invitations.size).toBe(0)
      expect(seeded.roleOf('kit-maintainer')).toBe('maintain')
    } finally {
      await seeded.close()
    }
  })

  it('added by hand later; inviting one through the API changes its role, as GitHub documents (204)', async () => {
    standIn.addCollaborator('kit-new-maintainer', 'maintain')
    expect(standIn.roleOf('kit-new-maintainer')).toBe('maintain')
    expect(standIn.roleOf(OWNER)).toBe('admin')
    expect(standIn.roleOf('kit-user-a')).toBeUndefined()

    const response = await invite('kit-new-maintainer', 'pull')
    expect(response.status).toBe(204)
    expect(response.data).toBeFalsy()
    expect(standIn.state.invitations.size).toBe(0)
    // Why a service must check before it invites: the 204 turned a maintainer into a reader.
    expect(standIn.roleOf('kit-new-maintainer')).toBe('read')
  })

  it('an invitation someone else sent by hand: inviting again answers 201 with that same invitation, and no second one', async () => {
    const handInvitation = standIn.addInvitation('kit-user-b', 'write')
    const again = await invite('kit-user-b', 'pull')
    expect(again.status).toBe(201)
    expect(again.data.id).toBe(handInvitation)
    expect(again.data.permissions).toBe('write')
    expect([...standIn.state.invitations.keys()]).toEqual([handInvitation])
    expect(() => standIn.addInvitation(OWNER)).toThrow()
  })
})

describe('invitations', () => {
  it('lists pending invitations and marks them expired after seven days', async () => {
    const { data: invitation } = await invite('kit-user-a')

    const pending = await octokit.rest.repos.listInvitations(repo)
    expect(pending.status).toBe(200)
    expect(pending.data).toEqual([expect.objectContaining({ id: invitation.id, expired: false })])

    now = new Date(now.getTime() + 8 * DAY_MS)
    const later = await octokit.rest.repos.listInvitations(repo)
    expect(later.data).toEqual([expect.objectContaining({ id: invitation.id, expired: true })])
    expect(() => standIn.accept('kit-user-a')).toThrow(/no pending invitation/)
  })

  it('replaces an expired invitation with a new one', async () => {
    const { data: expired } = await invite('kit-user-a')
    now = new Date(now.getTime() + 8 * DAY_MS)

    const { status, data: renewed } = await invite('kit-user-a')

    expect(status).toBe(201)
    expect(renewed.id).not.toBe(expired.id)
    expect(renewed.expired).toBe(false)
    expect([...standIn.state.invitations.keys()]).toEqual([renewed.id])
  })

  it('pages through invitations with a Link header, as octokit.paginate expects', async () => {
    for (const login of ['kit-user-a', 'kit-user-b', 'octocat']) await invite(login)

    const first = await octokit.rest.repos.listInvitations({ ...repo, per_page: 2 })
    expect(first.data).toHaveLength(2)
    expect(first.headers.link).toContain('rel="next"')

    const all = await octokit.paginate(octokit.rest.repos.listInvitations, { ...repo, per_page: 2 })
    expect(all.map((invitation) => invitation.invitee?.login)).toEqual(['kit-user-a', 'kit-user-b', 'octocat'])
  })

  it('deletes an invitation, and 404s for an unknown one', async () => {
    const { data: invitation } = await invite('kit-user-a')

    const response = await octokit.rest.repos.deleteInvitation({ ...repo, invitation_id: invitation.id })
    expect(response.status).toBe(204)
    expect(standIn.state.invitations.size).toBe(0)

    await expect(octokit.rest.repos.deleteInvitation({ ...repo, invitation_id: invitation.id })).rejects.toMatchObject({
      status: 404,
    })
  })

  it('is accepted by the invitee through the API', async () => {
    const { data: invitation } = await invite('kit-user-b')
    const invitee = client('ghp_the_invitees_own_token')

    const response = await invitee.rest.repos.acceptInvitationForAuthenticatedUser({ invitation_id: invitation.id })

    expect(response.status).toBe(204)
    expect(standIn.state.collaborators.has('kit-user-b')).toBe(true)
  })
})

describe('collaborators', () => {
  it('checks whether a user is a collaborator', async () => {
    await invite('kit-user-a')
    await expect(octokit.rest.repos.checkCollaborator({ ...repo, username: 'kit-user-a' })).rejects.toMatchObject({
      name: 'HttpError',
      status: 404,
    })

    standIn.accept('kit-user-a')
    const response = await octokit.rest.repos.checkCollaborator({ ...repo, username: 'Kit-User-A' })
    expect(response.status).toBe(204)
  })

  it('lists the owner and the collaborators with their permissions', async () => {
    await invite('kit-user-a', 'pull')
    standIn.accept('kit-user-a')

    const response = await octokit.rest.repos.listCollaborators(repo)

    expect(response.data).toEqual([
      expect.objectContaining({
        login: OWNER,
        role_name: 'admin',
        permissions: expect.objectContaining({ admin: true }),
      }),
      expect.objectContaining({
        login: 'kit-user-a',
        role_name: 'read',
        permissions: { pull: true, triage: false, push: false, maintain: false, admin: false },
        url: `${standIn.url}/users/kit-user-a`,
      }),
    ])
  })

  it('removes a collaborator, answering 204 also for someone who is not one', async () => {
    await invite('kit-user-a')
    standIn.accept('kit-user-a')

    const removed = await octokit.rest.repos.removeCollaborator({ ...repo, username: 'kit-user-a' })
    expect(removed.status).toBe(204)
    expect(standIn.state.collaborators.size).toBe(0)

    const again = await octokit.rest.repos.removeCollaborator({ ...repo, username: 'kit-user-a' })
    expect(again.status).toBe(204)
  })
})

describe('authentication and other repositories', () => {
  it('answers 401 Bad credentials for a wrong token', async () => {
    await expect(
      client('ghp_wrong').rest.repos.addCollaborator({ ...repo, username: 'kit-user-a' }),
    ).rejects.toMatchObject({
      name: 'HttpError',
      status: 401,
      response: { data: { message: 'Bad credentials' } },
    })
    expect(standIn.state.invitations.size).toBe(0)
  })

  it('answers 401 Requires authentication without a token, and records the request', async () => {
    const anonymous = new Octokit({ baseUrl: standIn.url, log: quiet })

    await expect(anonymous.rest.repos.listInvitations(repo)).rejects.toMatchObject({
      status: 401,
      response: { data: { message: 'Requires authentication' } },
    })
    expect(standIn.state.requests).toEqual([
      { method: 'GET', path: `/repos/${OWNER}/${REPO}/invitations`, at: expect.any(Number) },
    ])
  })

  it('answers 404 for any other repository', async () => {
    await expect(
      octokit.rest.repos.addCollaborator({ owner: OWNER, repo: 'someone-elses-kit', username: 'kit-user-a' }),
    ).rejects.toMatchObject({ status: 404, response: { data: { message: 'Not Found' } } })
    await expect(octokit.rest.repos.listInvitations({ owner: 'other-owner', repo: REPO })).rejects.toMatchObject({
      status: 404,
    })
  })
})

describe('injected failures', () => {
  const collaboratorPath = `/repos/${OWNER}/${REPO}/collaborators/kit-user-a`

  it('answers an injected 500 without changing anything', async () => {
    standIn.failNext({ method: 'PUT', path: collaboratorPath, status: 500 })

    await expect(invite('kit-user-a')).rejects.toMatchObject({ name: 'HttpError', status: 500 })
    expect(standIn.state.invitations.size).toBe(0)

    expect((await invite('kit-user-a')).status).toBe(201)
  })

  it('answers a rate limit with GitHub’s headers', async () => {
    const reset = String(Math.floor(now.getTime() / 1000) + 600)
    standIn.failNext({
      path: /\/collaborators\//,
      status: 403,
      headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset },
    })

    const error = await invite('kit-user-a').catch((caught: unknown) => caught)

    expect(error).toMatchObject({
      name: 'HttpError',
      status: 403,
      response: {
        headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset },
        data: { message: expect.stringMatching(/^API rate limit exceeded/) },
      },
    })
  })

  it('answers an injected 422 with its body', async () => {
    standIn.failNext({
      path: collaboratorPath,
      status: 422,
      body: { message: 'Validation Failed', errors: [{ resource: 'Repository', code: 'custom', message: 'nope' }] },
    })

    await expect(invite('kit-user-a')).rejects.toMatchObject({ status: 422, message: expect.stringContaining('nope') })
  })

  it('uses a rule up after `count` requests, and clearFailures drops the rest', async () => {
    standIn.failNext({ path: /invitations$/, status: 502, count: 2 })
    await expect(octokit.rest.repos.listInvitations(repo)).rejects.toMatchObject({ status: 502 })
    await expect(octokit.rest.repos.listInvitations(repo)).rejects.toMatchObject({ status: 502 })
    expect((await octokit.rest.repos.listInvitations(repo)).status).toBe(200)

    standIn.failNext({ path: /invitations$/, status: 502 })
    standIn.clearFailures()
    expect((await octokit.rest.repos.listInvitations(repo)).status).toBe(200)
  })

  it('a delay alone answers normally afterwards', async () => {
    standIn.failNext({ path: collaboratorPath, delayMs: 300 })
    const started = Date.now()

    // Octokit 22 ignores `request.timeout`: it is accepted and the request simply waits.
    const response = await octokit.rest.repos.addCollaborator({
      ...repo,
      username: 'kit-user-a',
      request: { timeout: 100 },
    })

    expect(Date.now() - started).toBeGreaterThanOrEqual(280)
    expect(response.status).toBe(201)
  })

  it('a delay makes a client with a deadline time out', async () => {
    standIn.failNext({ path: collaboratorPath, delayMs: 1_000 })

    await expect(
      octokit.rest.repos.addCollaborator({
        ...repo,
        username: 'kit-user-a',
        request: { signal: AbortSignal.timeout(200) },
      }),
    ).rejects.toMatchObject({ message: expect.stringMatching(/timeout|aborted/i) })
  })
})

describe('the invitations page', () => {
  it('lists pending invitations with a button that accepts them', async () => {
    await invite('kit-user-a')

    const page = await fetch(`${standIn.url}/`)
    const html = await page.text()
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    expect(html).toContain('Accept as kit-user-a')
    expect(html).toContain('action="/_standin/accept"')

    const accepted = await fetch(`${standIn.url}/_standin/accept`, {
      method: 'POST',
      body: new URLSearchParams({ login: 'kit-user-a' }),
      redirect: 'manual',
    })
    expect(accepted.status).toBe(303)
    expect(standIn.state.collaborators.has('kit-user-a')).toBe(true)

    const invitationsPage = await fetch(`${standIn.url}/${OWNER}/${REPO}/invitations`)
    expect(await invitationsPage.text()).not.toContain('Accept as')
  })

  it('answers 404 when there is nothing to accept', async () => {
    const response = await fetch(`${standIn.url}/_standin/accept`, {
      method: 'POST',
      body: new URLSearchParams({ login: 'kit-user-b' }),
    })
    expect(response.status).toBe(404)
    expect(await response.text()).toContain('kit-user-b has no pending invitation')
  })
})

describe('offline development mode', () => {
  it('lets every well-formed login exist, and still refuses malformed ones', async () => {
    const open = await startCodeHostStandIn({
      token: 'dev-token',
      owner: 'kit-org',
      repo: 'starter-kit',
      everyLoginExists: true,
    })
    try {
      const client = new Octokit({ auth: 'dev-token', baseUrl: open.url, request: { retries: 0 } })
      const invited = await client.rest.repos.addCollaborator({
        owner: 'kit-org',
        repo: 'starter-kit',
        username: 'someone-new',
      })
      expect(invited.status).toBe(201)
      await expect(
        client.rest.repos.addCollaborator({ owner: 'kit-org', repo: 'starter-kit', username: 'bad_name' }),
      ).rejects.toMatchObject({ status: 404 })
    } finally {
      await open.close()
    }
  })
})

describe("a user's permission on the repository", () => {
  const permissionOf = async (username: string) =>
    (await octokit.rest.repos.getCollaboratorPermissionLevel({ ...repo, username })).data

  it('gives the legacy permission and the role name, as GitHub does; none for an account without access; 404 for no account', async () => {
    standIn.addCollaborator('kit-maint', 'maintain')
    standIn.addCollaborator('kit-reader', 'read')
    standIn.addUser('kit-outsider')
    expect(await permissionOf('kit-maint')).toMatchObject({
      permission: 'write',
      role_name: 'maintain',
      user: { login: 'kit-maint' },
    })
    expect(await permissionOf('kit-reader')).toMatchObject({ permission: 'read', role_name: 'read' })
    expect(await permissionOf(OWNER)).toMatchObject({ permission: 'admin', role_name: 'admin' })
    expect(await permissionOf('kit-outsider')).toMatchObject({ permission: 'none' })
    await expect(permissionOf('kit-no-such-account')).rejects.toMatchObject({ status: 404 })
  })
})
