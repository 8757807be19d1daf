export type Account = { login: string; id: number }

/** The accounts a stand-in starts with when the options name none. */
export const DEFAULT_USERS = ['octocat', 'kit-user-a', 'kit-user-b']

/** Numbered after the recorded accounts (1000 to 1002) so ids in a stand-in's answers never look recorded. */
const FIRST_ACCOUNT_ID = 1003

/** The accounts that exist on this GitHub; like GitHub, logins are found whatever their case. */
export class Accounts {
  private readonly byLogin = new Map<string, Account>()

  /** The account with that login, created when there is none yet. */
  add(login: string): Account {
    const existing = this.find(login)
    if (existing) return existing
    const account = { login, id: FIRST_ACCOUNT_ID + this.byLogin.size }
    this.byLogin.set(login.toLowerCase(), account)
    return account
  }

  find(login: string): Account | undefined {
    return this.byLogin.get(login.toLowerCase())
  }
}
