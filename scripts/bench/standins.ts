/**
 * The bench's stand-ins, in a process of their own so their work is not counted as the server's: the
 * processor stand-in, the code-host stand-in, an SMTP sink that keeps nothing, and a small control
 * server through which the driver pays checkout sessions (with or without delivering their events).
 * Prints `ready` on stdout once everything listens; stops on SIGTERM.
 */
import http from 'node:http'

import { SMTPServer } from 'smtp-server'
import type Stripe from 'stripe'

import { startCodeHostStandIn } from '@starter-kit/standins/code-host'
import { startProcessorStandIn } from '@starter-kit/standins/processor'
import { CODE_HOST, PORTS, PROCESSOR, serverUrl } from './settings'

export type PayRequest = { sessions: { id: string; email: string }[]; deliver: boolean }
export type PayAnswer = { completed: Stripe.Event[] }
/** One email the SMTP sink took: when its data ended (ms since the epoch), its envelope's recipients, its subject. */
export type SunkMail = { at: number; to: string[]; subject: string }
/** `GET /mail`: the count; `GET /mail?to=<prefix>` adds the emails to recipients whose address starts with it. */
export type MailAnswer = { received: number; messages?: SunkMail[] }

const webhookUrl = `${serverUrl}/api/webhooks/processor`
const processor = await startProcessorStandIn({ port: PORTS.processor, ...PROCESSOR, webhookUrl })
// Runs for the whole bench: the server's repository checks call it.
await startCodeHostStandIn({ port: PORTS.codeHost, ...CODE_HOST, everyLoginExists: true })

/** The subject header of a message's head (folded lines joined; launch day's subjects are plain ASCII). */
const subjectOf = (head: string): string =>
  /^subject:[ \t]*(.*(?:\r?\n[ \t].*)*)/im
    .exec(head)?.[1]
    ?.replace(/\r?\n[ \t]/g, ' ')
    .trim() ?? ''

let mails = 0
const sunk: SunkMail[] = []
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, session, callback) {
    // The body is dropped; only the head (up to the first blank line, at most 16 KiB) is kept for the subject.
    let head = ''
    stream.on('data', (chunk: Buffer) => {
      if (head.length < 16_384 && !/\r?\n\r?\n/.test(head)) head += chunk.toString('utf8')
    })
    stream.on('end', () => {
      mails += 1
      sunk.push({
        at: Date.now(),
        to: session.envelope.rcptTo.map((recipient) => recipient.address.toLowerCase()),
        subject: subjectOf(head.split(/\r?\n\r?\n/)[0] ?? ''),
      })
      callback()
    })
  },
})
await new Promise<void>((resolve) => smtp.listen(PORTS.smtp, '127.0.0.1', resolve))

/**
 * Pays each session on the stand-in ("Pay" on its hosted checkout). Without `deliver` the events are
 * recorded but not sent, so the driver can send them itself under load.
 */
const pay = async ({ sessions, deliver }: PayRequest): Promise<PayAnswer> => {
  processor.setWebhookUrl(deliver ? webhookUrl : null)
  try {
    const completed: Stripe.Event[] = []
    for (const session of sessions) {
      const events = await processor.pay(session.id, { email: session.email })
      completed.push(...events.filter((event) => event.type === 'checkout.session.completed'))
    }
    return { completed }
  } finally {
    processor.setWebhookUrl(webhookUrl)
  }
}

const readJson = async (req: http.IncomingMessage): Promise<unknown> => {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return JSON.parse(Buffer.concat(chunks).toString('utf8'))
}

// One payment batch at a time: a batch without delivery switches the webhook URL off while it runs.
let queue: Promise<unknown> = Promise.resolve()
const control = http.createServer((req, res) => {
  const answer = (status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  const url = new URL(req.url ?? '/', 'http://control')
  if (req.method === 'GET' && url.pathname === '/mail') {
    const prefix = url.searchParams.get('to')?.toLowerCase()
    const body: MailAnswer = { received: mails }
    if (prefix) body.messages = sunk.filter((mail) => mail.to.some((address) => address.startsWith(prefix)))
    return answer(200, body)
  }
  if (req.method !== 'POST' || url.pathname !== '/pay')
    return answer(404, { error: 'POST /pay, GET /mail or GET /mail?to=<address prefix>' })
  const work = queue.then(async () => pay((await readJson(req)) as PayRequest))
  queue = work.catch(() => undefined)
  work.then(
    (body) => answer(200, body),
    (error: unknown) => answer(500, { error: error instanceof Error ? error.message : String(error) }),
  )
})
await new Promise<void>((resolve) => control.listen(PORTS.control, '127.0.0.1', resolve))

// Nothing here outlives the run: the stand-ins keep their state in memory only.
process.on('SIGTERM', () => process.exit(0))
console.info('ready')
