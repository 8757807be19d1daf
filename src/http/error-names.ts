import * as payloadExports from 'payload'

/** Payload's error classes whose names our error codes and log levels read. */
const ERROR_CLASSES = [
  'APIError',
  'AuthenticationError',
  'ErrorDeletingFile',
  'FileRetrievalError',
  'FileUploadError',
  'Forbidden',
  'InvalidFieldName',
  'InvalidFieldRelationship',
  'Locked',
  'LockedAuth',
  'MissingFile',
  'NotFound',
  'QueryError',
  'UnauthorizedError',
  'UnverifiedEmail',
  'ValidationError',
] as const satisfies readonly (keyof typeof payloadExports)[]

/**
 * Payload names each error after its class (`this.name = this.constructor.name`); our error codes
 * (src/http/payload-errors.ts) and the log level of each (payload.config.ts `loggingLevels`) are keyed
 * by those names. The production build minifies class names ("o"), so they are set back here, once
 * per copy of Payload (server.ts's and the one Next bundles each load the config).
 */
export const restorePayloadErrorNames = (): void => {
  for (const name of ERROR_CLASSES) {
    const errorClass: unknown = payloadExports[name]
    if (typeof errorClass === 'function' && errorClass.name !== name) Object.defineProperty(errorClass, 'name', { value: name, configurable: true })
  }
}
