import { MigrateDownArgs, MigrateUpArgs, sql } from '@payloadcms/db-postgres'

/**
 * Hand-written: the shared store of the sign-in rate limits (rate-limiter-flexible's PostgreSQL
 * layout). It is not a Payload collection; the adapter's tablesFilter keeps schema tooling off it.
 */
export async function up({ db }: MigrateUpArgs): Promise<void> {
  await db.execute(sql`
   CREATE TABLE IF NOT EXISTS "rate_limits" (
  	"key" varchar(255) PRIMARY KEY,
  	"points" integer NOT NULL DEFAULT 0,
  	"expire" bigint
  );`)
}

export async function down({ db }: MigrateDownArgs): Promise<void> {
  await db.execute(sql`DROP TABLE IF EXISTS "rate_limits";`)
}
