export type Account = { login: string; id: number }

/** The accounts a stand-in starts with when the options name none. */
export const DEFAULT_USERS = ['octocat', 'kit-user-a', 'kit-user-b']

const WELL_FORMED_LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/

/** Numbered after the recorded accounts (1000 to 1002) so ids in a stand-in's answers never look recorded. */
const FIRST_ACCOUNT_ID = 1003

/** The accounts that exist on this GitHub; like GitHub, logins are found whatever their case. */
export class Accounts {
  private readonly byLogin = new Map<string, Account>()

  /** When true, every well-formed login exists (offline development: a developer types their own). */
  constructor(private readonly everyLoginExists = false) {}

  /** The account with that login, created when there is none yet. */
  add(login: string): Account {
    const existing = this.byLogin.get(login.toLowerCase())
    if (existing) return existing
    const account = { login, id: FIRST_ACCOUNT_ID + this.byLogin.size }
    this.byLogin.set(login.toLowerCase(), account)
    return account
  }

  find(login: string): Account | undefined {
    const known = this.byLogin.get(login.toLowerCase())
    if (known || !this.everyLoginExists || !WELL_FORMED_LOGIN.test(login)) return known
    return this.add(login)
  }
}
