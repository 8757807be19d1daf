/**
 * The bench's stand-ins, in a process of their own so their work is not counted as the server's: the
 * processor stand-in, the code-host stand-in, an SMTP sink that keeps nothing, and a small control
 * server through which the driver pays checkout sessions (with or without delivering their events).
 * Prints `ready` on stdout once everything listens; stops on SIGTERM.
 */
import http from 'node:http'

import { SMTPServer } from 'smtp-server'
import type Stripe from 'stripe'

import { startCodeHostStandIn } from '../../src/standins/code-host'
import { startProcessorStandIn } from '../../src/standins/processor'
import { CODE_HOST, PORTS, PROCESSOR, serverUrl } from './settings'

export type PayRequest = { sessions: { id: string; email: string }[]; deliver: boolean }
export type PayAnswer = { completed: Stripe.Event[] }

const webhookUrl = `${serverUrl}/api/webhooks/processor`
const processor = await startProcessorStandIn({ port: PORTS.processor, ...PROCESSOR, webhookUrl })
const codeHost = await startCodeHostStandIn({ port: PORTS.codeHost, ...CODE_HOST, everyLoginExists: true })

let mails = 0
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, _session, callback) {
    stream.resume()
    stream.on('end', () => {
      mails += 1
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
  const answer = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
  if (req.method === 'GET' && req.url === '/mail') return answer(200, { received: mails })
  if (req.method !== 'POST' || req.url !== '/pay') return answer(404, { error: 'POST /pay or GET /mail' })
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
