import type { PayloadRequest } from 'payload'

import { track } from '../analytics/track'
import { iso, type SqlRow } from '../db/rows'
import { license_activations, licenses } from '../db/schema.generated'
import { bare, execute, sql } from '../db/transaction'
import { emitWebhookEvent } from '../webhooks/emit'
import { activationData } from '../webhooks/payloads'

/**
 * The one place that writes the `license_activations` table (tests/int/write-paths.test.ts): an
 * activation made and ended here is recorded as an analytics event and announced as an outbound
 * webhook in the caller's transaction, whoever asked (an app with the key, the owner, staff). The
 * limits and locks around them are the teams capability's (src/teams/activations.ts); validation
 * touches `last_validated_at`, which no event carries.
 */

/** Who ended an activation: the key's holder through the API, the owner in the dashboard, or staff. */
export const DEACTIVATED_BY = ['key', 'owner', 'staff'] as const
export type DeactivatedBy = (typeof DEACTIVATED_BY)[number]

export type ActivationView = {
  id: number
  fingerprint: string
  label: string | null
  createdAt: string
  lastValidatedAt: string | null
}

export type ActivationRow = Pick<
  SqlRow<typeof license_activations>,
  'id' | 'fingerprint' | 'label' | 'created_at' | 'last_validated_at'
>

export const ACTIVATION_COLUMNS = sql`${license_activations.id}, ${license_activations.fingerprint}, ${license_activations.label}, ${license_activations.createdAt}, ${license_activations.lastValidatedAt}`

export const activationViewOf = (row: ActivationRow): ActivationView => ({
  id: row.id,
  fingerprint: row.fingerprint,
  label: row.label,
  createdAt: iso(row.created_at)!,
  lastValidatedAt: iso(row.last_validated_at),
})

/** A new activation of `licenseId` (its limit already checked under the license's lock). */
export const insertActivation = async (
  req: PayloadRequest,
  input: { licenseId: number; fingerprint: string; label: string | null; now: Date },
): Promise<ActivationView> => {
  const [row] = await execute<ActivationRow>(
    req,
    sql`INSERT INTO ${license_activations} (${bare(license_activations.license, license_activations.fingerprint, license_activations.label, license_activations.lastValidatedAt)},
          ${bare(license_activations.updatedAt, license_activations.createdAt)})
        VALUES (${input.licenseId}, ${input.fingerprint}, ${input.label}, ${input.now.toISOString()}, now(), now())
        RETURNING ${ACTIVATION_COLUMNS}`,
  )
  const activation = activationViewOf(row!)
  await track(req, {
    name: 'activation_created',
    properties: { licenseId: input.licenseId, activationId: activation.id },
    sourceId: `activation:${activation.id}`,
  })
  await emitWebhookEvent(req, {
    type: 'activation.created',
    sourceKey: `activation.created:${activation.id}`,
    data: () => activationData({ ...activation, licenseId: input.licenseId, deactivatedAt: null, deactivatedBy: null }),
  })
  return activation
}

/** End activation `activationId` of `licenseId` (found live under the license's lock). */
export const endActivation = async (
  req: PayloadRequest,
  input: { licenseId: number; activationId: number; by: DeactivatedBy; now: Date },
): Promise<void> => {
  const { licenseId, activationId, by, now } = input
  const [ended] = await execute<ActivationRow>(
    req,
    sql`UPDATE ${license_activations} SET ${bare(license_activations.deactivatedAt)} = ${now.toISOString()}, ${bare(license_activations.deactivatedBy)} = ${by},
          ${bare(license_activations.updatedAt)} = now()
        WHERE ${license_activations.id} = ${activationId}
        RETURNING ${ACTIVATION_COLUMNS}`,
  )
  await track(req, {
    name: 'activation_deleted',
    properties: { licenseId, activationId, by },
    sourceId: `activation:${activationId}`,
  })
  await emitWebhookEvent(req, {
    type: 'activation.deleted',
    sourceKey: `activation.deleted:${activationId}`,
    data: () =>
      activationData({
        ...activationViewOf(ended!),
        licenseId,
        deactivatedAt: now.toISOString(),
        deactivatedBy: by,
      }),
  })
}

/** A validation of an activated installation: when it was last seen (bookkeeping, no event). */
export const touchActivation = async (req: PayloadRequest, activationId: number, now: Date): Promise<void> => {
  await execute(
    req,
    sql`UPDATE ${license_activations} SET ${bare(license_activations.lastValidatedAt)} = ${now.toISOString()} WHERE ${license_activations.id} = ${activationId}`,
  )
}

/**
 * An erased account's installations (src/privacy/erasure.ts): every activation of its licenses is deleted,
 * fingerprints and labels with them. No event: the licenses' own revocation (license.revoked) tells
 * receivers they stopped working. Returns how many went.
 */
export const forgetActivationsOf = async (req: PayloadRequest, userId: number): Promise<number> =>
  (
    await execute(
      req,
      sql`DELETE FROM ${license_activations}
          WHERE ${license_activations.license} IN (SELECT ${licenses.id} FROM ${licenses} WHERE ${licenses.user} = ${userId})
          RETURNING ${license_activations.id}`,
    )
  ).length
