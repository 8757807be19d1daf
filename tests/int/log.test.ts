/**
 * The logger's own defences (src/log.ts): secret fields redacted, a failed query's parameters and an
 * error's other properties left out, Payload's job lines reduced to the job's id and task, and the
 * shared context on each line written inside it.
 */
import { describe, expect, it } from 'vitest'

import { createLogger, withLogContext } from '../../src/log'

/** A JSON log line: its fields, with an error as the logger's serializer writes it. */
type LogLine = Record<string, unknown> & { msg: string; err: { stack: string; cause: unknown } }

const capture = () => {
  const lines: string[] = []
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void lines.push(line) } })
  return { logger, lines, last: () => JSON.parse(lines.at(-1)!) as LogLine }
}

describe('the logger', () => {
  it('writes secret fields as [redacted], at the top of a line and one object down', () => {
    const { logger, last, lines } = capture()
    logger.info(
      {
        password: 'pw-0123456789',
        token: 'tok-0123456789',
        licenseKey: 'KIT-AAAA-BBBB-CCCC',
        user: { apiKey: 'kit_abc_0123456789', email: 'someone@example.test' },
        headers: {
          authorization: 'Bearer kit_abc_0123456789',
          cookie: 'payload-token=jwt-0123456789',
          'set-cookie': 'payload-token=jwt-9876543210',
        },
        req: { headers: { authorization: 'JWT jwt-0123456789' } },
      },
      'a line',
    )
    expect(last()).toMatchObject({
      password: '[redacted]',
      token: '[redacted]',
      licenseKey: '[redacted]',
      user: { apiKey: '[redacted]', email: 'someone@example.test' },
      headers: { authorization: '[redacted]', cookie: '[redacted]', 'set-cookie': '[redacted]' },
      req: { headers: { authorization: '[redacted]' } },
    })
    for (const secret of [
      'pw-0123456789',
      'tok-0123456789',
      'KIT-AAAA',
      'kit_abc_0123456789',
      'jwt-0123456789',
      'jwt-9876543210',
    ]) {
      expect(lines.join('')).not.toContain(secret)
    }
  })

  it("censors a child logger's secret bindings and an array's holder, and leaves other lines as they are", () => {
    const { logger, last, lines } = capture()
    logger.child({ name: 'kit', token: 'tok-child-0123456789' }).info({ nested: { secret: 's-0123456789' } }, 'child')
    expect(last()).toMatchObject({ name: 'kit', token: '[redacted]', nested: { secret: '[redacted]' } })
    logger.child({ 'set-cookie': 'payload-token=jwt-child-0123456789' }).info('child')
    expect(last()).toMatchObject({ 'set-cookie': '[redacted]' })
    const plain = { requestId: 'r-1', path: '/pricing', status: 200, items: [{ key: 'x' }] }
    logger.info(plain, 'plain')
    expect(last()).toMatchObject({ requestId: 'r-1', path: '/pricing', status: 200 })
    expect(plain).toEqual({ requestId: 'r-1', path: '/pricing', status: 200, items: [{ key: 'x' }] })
    expect(lines.join('')).not.toContain('tok-child-0123456789')
    expect(lines.join('')).not.toContain('jwt-child-0123456789')
    expect(lines.join('')).not.toContain('s-0123456789')
  })

  it("writes an error's type, message, stack and code, without a failed query's parameters or its other properties", () => {
    const { logger, last, lines } = capture()
    const cause = Object.assign(new Error('duplicate key value violates unique constraint'), {
      code: '23505',
      detail: 'Key (key)=(KIT-SECRET-KEY) already exists.',
    })
    const error = new Error(
      'Failed query: insert into "licenses" ("key") values ($1)\nparams: KIT-SECRET-KEY,someone@example.test',
      { cause },
    )
    logger.error({ err: error }, 'insert failed')
    logger.error(error)
    expect(lines.join('')).not.toContain('KIT-SECRET-KEY')
    expect(last().msg).toBe('Failed query: insert into "licenses" ("key") values ($1)\nparams: [redacted]')
    expect(last().err).toMatchObject({
      type: 'Error',
      message: expect.stringContaining('params: [redacted]'),
      cause: { code: '23505' },
    })
    expect(last().err.cause).not.toHaveProperty('detail')
    expect(last().err.stack).toContain('params: [redacted]\n    at ')
  })

  it("reduces Payload's job lines to the job's id and task (its input is never written)", () => {
    const { logger, last, lines } = capture()
    logger.error({
      msg: 'Error running task 1',
      job: { id: 42, taskSlug: 'sendEmail', input: { to: 'a@example.test', body: 'sealed-body-0123' } },
    })
    expect(last()).toMatchObject({ jobId: 42, task: 'sendEmail', msg: 'Error running task 1' })
    expect(lines.join('')).not.toContain('sealed-body-0123')
  })

  it('adds the current context to every line, nested contexts adding to it, and nothing outside', async () => {
    const { logger, lines } = capture()
    await withLogContext({ requestId: 'r-1' }, async () => {
      logger.info('in the request')
      await new Promise((resolve) => setTimeout(resolve, 1))
      withLogContext({ eventId: 'evt_1', eventType: 'invoice.paid' }, () => logger.info('in the event'))
      logger.info({ requestId: 'explicit' }, 'a field of the line wins')
    })
    logger.info('outside')
    expect(lines.map((line) => JSON.parse(line))).toMatchObject([
      { requestId: 'r-1', msg: 'in the request' },
      { requestId: 'r-1', eventId: 'evt_1', eventType: 'invoice.paid', msg: 'in the event' },
      { requestId: 'explicit' },
      { msg: 'outside' },
    ])
    expect(JSON.parse(lines.at(-1)!)).not.toHaveProperty('requestId')
  })

  it('falls back to info for a level it does not know', () => {
    expect(createLogger({ level: 'loud', destination: { write: () => undefined } }).level).toBe('info')
    expect(createLogger({ level: 'WARN', destination: { write: () => undefined } }).level).toBe('warn')
  })
})
