/** What every stand-in's failure rules have in common: which requests they answer, how many times. */
export type BaseFailureRule = { method?: string; path: RegExp | string; count?: number }

/** The failures a test asked for, each used up by the requests it answers. */
export class FailureRules<FailureRule extends BaseFailureRule> {
  private rules: (FailureRule & { remaining: number })[] = []
  private readonly timers = new Set<NodeJS.Timeout>()

  add(rule: FailureRule): void {
    this.rules.push({ ...rule, remaining: rule.count ?? 1 })
  }

  clear(): void {
    this.rules = []
  }

  /** The first rule matching the request, counted as used. */
  take(method: string, path: string): FailureRule | undefined {
    const rule = this.rules.find(
      (candidate) =>
        (candidate.method === undefined || candidate.method.toUpperCase() === method) &&
        (typeof candidate.path === 'string' ? candidate.path === path : candidate.path.test(path)),
    )
    if (!rule) return undefined
    rule.remaining -= 1
    if (rule.remaining <= 0) this.rules = this.rules.filter((candidate) => candidate !== rule)
    return rule
  }

  /** Runs `then` after the rule's delay; `close` drops what is still waiting. */
  after(delayMs: number, then: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer)
      then()
    }, delayMs)
    this.timers.add(timer)
  }

  close(): void {
    for (const timer of this.timers) clearTimeout(timer)
    this.timers.clear()
  }
}
