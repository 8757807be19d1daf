import { MigrateUpArgs, MigrateDownArgs, sql } from '@payloadcms/db-postgres'

export async function up({ db, payload, req }: MigrateUpArgs): Promise<void> {
  await db.execute(sql`
   ALTER TABLE "repo_access" ADD COLUMN "service_invitation_username" varchar;
  ALTER TABLE "repo_access" ADD COLUMN "service_invitation_invitation_id" numeric;
  ALTER TABLE "repo_access" ADD COLUMN "service_invitation_sent_at" timestamp(3) with time zone;`)
}

export async function down({ db, payload, req }: MigrateDownArgs): Promise<void> {
  await db.execute(sql`
   ALTER TABLE "repo_access" DROP COLUMN "service_invitation_username";
  ALTER TABLE "repo_access" DROP COLUMN "service_invitation_invitation_id";
  ALTER TABLE "repo_access" DROP COLUMN "service_invitation_sent_at";`)
}
