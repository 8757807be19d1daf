import crypto from 'node:crypto'

/** Every variable production requires, with values its checks accept (src/config/env.ts). */
export const COMPLETE_PRODUCTION_ENV = {
  PAYLOAD_SECRET: 'a'.repeat(40),
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/unused',
  SERVER_URL: 'https://kit.example.com',
  SMTP_URL: 'smtp://127.0.0.1:2525',
  PAYMENT_SECRET_KEY: 'sk_live_0123456789abcdef',
  PAYMENT_WEBHOOK_SECRET: 'whsec_0123456789abcdef',
  PUBLIC_PAYMENT_PUBLISHABLE_KEY: 'pk_live_0123456789abcdef',
  REPO_ACCESS_TOKEN: 'ghp_0123456789abcdef',
  REPO_OWNER: 'kit-org',
  REPO_NAME: 'starter-kit',
  LICENSE_SIGNING_KEY: crypto
    .generateKeyPairSync('ed25519')
    .privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
}
