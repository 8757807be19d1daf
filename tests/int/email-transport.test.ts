import nodemailer from 'nodemailer'
import { SMTPServer } from 'smtp-server'
import { afterAll, describe, expect, it } from 'vitest'

import { pooledSmtpUrl } from '../../src/email/adapter'

/** SMTP_URL becomes a pooled transport: a burst of emails shares a few connections. */
describe('the SMTP transport', () => {
  it('adds pool=true and 5 connections unless the URL sets pool itself; credentials survive', () => {
    expect(pooledSmtpUrl('smtp://user:p%40ss@mail.example.com:587')).toBe(
      'smtp://user:p%40ss@mail.example.com:587?pool=true&maxConnections=5',
    )
    expect(pooledSmtpUrl('smtps://mail.example.com?maxConnections=2')).toBe(
      'smtps://mail.example.com?maxConnections=2&pool=true',
    )
    expect(pooledSmtpUrl('smtp://mail.example.com:25?pool=false')).toBe('smtp://mail.example.com:25?pool=false')
  })

  let connections = 0
  let received = 0
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onConnect(_session, callback) {
      connections += 1
      callback()
    },
    onData(stream, _session, callback) {
      stream.resume()
      stream.on('end', () => {
        received += 1
        callback()
      })
    },
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('sends 40 messages at once over at most 5 connections', async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.server.address() as { port: number }
    const transport = nodemailer.createTransport(pooledSmtpUrl(`smtp://127.0.0.1:${port}`))
    await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        transport.sendMail({
          from: 'kit@example.com',
          to: `buyer-${index}@example.com`,
          subject: 'License',
          text: 'KIT-...',
        }),
      ),
    )
    transport.close()
    expect(received).toBe(40)
    expect(connections).toBeGreaterThan(0)
    expect(connections).toBeLessThanOrEqual(5)
  })
})
