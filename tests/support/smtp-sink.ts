import type { AddressInfo } from 'node:net'

import { type ParsedMail, simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'

export type SmtpSink = {
  url: string
  messages: ParsedMail[]
  /** Refuse every message with a temporary (4xx) error, as a mail server that is down would. */
  setDown: (down: boolean) => void
  /** Take this long to accept each message, as a slow mail provider does. */
  setDelay: (ms: number) => void
  waitFor: (predicate: (message: ParsedMail) => boolean, timeoutMs?: number) => Promise<ParsedMail>
  close: () => Promise<void>
}

/** A real SMTP server that keeps what it receives, parsed: the tests' mailbox. */
export const startSmtpSink = async (): Promise<SmtpSink> => {
  const messages: ParsedMail[] = []
  let down = false
  let delayMs = 0
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    // A client still connected when the file is done (a pooled transport) is told 421 at once: the
    // default waits 30 s for it to leave, which held a test worker idle after every file using the sink.
    closeTimeout: 10,
    onData(stream, _session, callback) {
      if (down) {
        stream.resume()
        stream.on('end', () =>
          callback(Object.assign(new Error('mailbox unavailable, try later'), { responseCode: 451 })),
        )
        return
      }
      simpleParser(stream)
        .then(async (parsed) => {
          if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs))
          messages.push(parsed)
          callback()
        })
        .catch(callback)
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    setDown: (value) => {
      down = value
    },
    setDelay: (ms) => {
      delayMs = ms
    },
    waitFor: async (predicate, timeoutMs = 10_000) => {
      const deadline = Date.now() + timeoutMs
      while (Date.now() < deadline) {
        const found = messages.find(predicate)
        if (found) return found
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      throw new Error(`no matching email within ${timeoutMs} ms (received ${messages.length})`)
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
