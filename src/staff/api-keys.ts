import type { PayloadRequest } from 'payload'

import type { SqlRow } from '../db/rows'
import { api_keys } from '../db/schema.generated'
import { execute, sql } from '../db/transaction'
import { ServiceError } from '../http/errors'
import type { ApiKey } from '../payload-types'
import { inStaffTransaction, recordAudit } from './audit'

export type ApiKeyActionResult = { apiKey: Pick<ApiKey, 'id' | 'prefix' | 'revokedAt'>; auditLogId: number }

/**
 * Support revokes a customer's API key: `revokedAt` is set (the key opens nothing from the next
 * request on; the row stays as history) and the audit row written, in one transaction.
 */
export const revokeApiKeyByStaff = (req: PayloadRequest, id: number, reason: string): Promise<ApiKeyActionResult> =>
  inStaffTransaction(req, async (tx) => {
    const [row] = await execute<Pick<SqlRow<typeof api_keys>, 'id' | 'prefix' | 'revoked_at'>>(
      tx,
      sql`SELECT ${api_keys.id}, ${api_keys.prefix}, ${api_keys.revokedAt} FROM ${api_keys} WHERE ${api_keys.id} = ${id} FOR UPDATE`,
    )
    if (!row) throw new ServiceError(404, 'api_key_not_found', 'There is no API key with this id.')
    if (row.revoked_at) throw new ServiceError(409, 'api_key_already_revoked', 'This API key is revoked already.')
    const revokedAt = new Date().toISOString()
    await tx.payload.update({
      collection: 'api_keys',
      id,
      data: { revokedAt },
      depth: 0,
      req: tx,
      overrideAccess: true,
    })
    const auditLogId = await recordAudit(tx, {
      action: 'api_key.revoke',
      targetCollection: 'api_keys',
      targetId: String(id),
      reason,
      before: { revokedAt: null },
      after: { revokedAt },
    })
    req.payload.logger.info(
      { event: 'api_key_revoked', apiKeyId: id, by: 'staff', auditLogId },
      'API key revoked by staff',
    )
    return { apiKey: { id, prefix: row.prefix, revokedAt }, auditLogId }
  })
