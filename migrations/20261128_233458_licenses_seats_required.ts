import { MigrateUpArgs, MigrateDownArgs, sql } from '@payloadcms/db-postgres'

export async function up({ db, payload, req }: MigrateUpArgs): Promise<void> {
  // A license whose count an admin emptied covers its buyer, as every license did before counts existed.
  await db.execute(sql`
   UPDATE "licenses" SET "seats" = 1 WHERE "seats" IS NULL;
   ALTER TABLE "licenses" ALTER COLUMN "seats" SET NOT NULL;`)
}

export async function down({ db, payload, req }: MigrateDownArgs): Promise<void> {
  await db.execute(sql`
   ALTER TABLE "licenses" ALTER COLUMN "seats" DROP NOT NULL;`)
}
