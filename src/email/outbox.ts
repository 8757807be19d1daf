import crypto from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'

import nodemailer, { type Transporter } from 'nodemailer'
import type { Transport } from 'nodemailer'

const LINK_PATTERN = /https?:\/\/[^\s"'<>]+/g

/**
 * Development email: each message is written to `<dir>/<time>-<id>.eml` (open it with any mail
 * client) and the log gets one line with the recipient, the subject and (outside production only,
 * since sign-in links are credentials) the links it carries.
 */
export const createOutboxTransport = (
  dir: string,
  log: (message: string) => void,
  options: { logLinks: boolean },
): Transporter => {
  const transport: Transport = {
    name: 'outbox',
    version: '1.0.0',
    send(mail, callback) {
      mail.message.build((buildError, raw) => {
        if (buildError) return callback(buildError, undefined)
        const messageId = mail.message.messageId()
        const file = path.join(dir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${crypto.randomUUID()}.eml`)
        const text =
          typeof mail.data.text === 'string' ? mail.data.text : typeof mail.data.html === 'string' ? mail.data.html : ''
        const links = options.logLinks ? [...new Set(text.match(LINK_PATTERN) ?? [])] : []
        fs.mkdir(dir, { recursive: true })
          .then(() => fs.writeFile(file, raw, { mode: 0o600 }))
          .then(() => {
            const to = [mail.data.to].flat().map(String).join(', ')
            log(
              `email to ${to}: "${String(mail.data.subject ?? '')}" saved to ${file}${links.length ? ` links: ${links.join(' ')}` : ''}`,
            )
            callback(null, { envelope: mail.message.getEnvelope(), messageId, file })
          })
          .catch((error: Error) => callback(error, undefined))
      })
    },
  }
  return nodemailer.createTransport(transport)
}
