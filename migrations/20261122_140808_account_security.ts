import { MigrateUpArgs, MigrateDownArgs, sql } from '@payloadcms/db-postgres'

export async function up({ db, payload, req }: MigrateUpArgs): Promise<void> {
  await db.execute(sql`
   CREATE TYPE "public"."enum_payment_history_dispute_status" AS ENUM('none', 'open', 'won', 'lost');
  ALTER TYPE "public"."enum_auth_tokens_purpose" ADD VALUE 'email_change';
  ALTER TABLE "users" ADD COLUMN "pending_email" varchar;
  ALTER TABLE "user_subscriptions" ADD COLUMN "processor_snapshot_at" timestamp(3) with time zone;
  ALTER TABLE "payment_history" ADD COLUMN "refunded_amount" numeric DEFAULT 0;
  ALTER TABLE "payment_history" ADD COLUMN "dispute_status" "enum_payment_history_dispute_status" DEFAULT 'none';`)
  // No usable token stays at rest: reset tokens were stored in clear (now only their SHA-256), and
  // queued emails carried their links in clear (now sealed). Outstanding reset links stop working.
  await db.execute(sql`
  UPDATE "users" SET "reset_password_token" = NULL, "reset_password_expiration" = NULL
    WHERE "reset_password_token" IS NOT NULL AND "reset_password_token" NOT LIKE 'sha256:%';
  DELETE FROM "payload_jobs" WHERE "task_slug" = 'sendEmail' AND NOT ("input" ? 'body');`)
}

export async function down({ db, payload, req }: MigrateDownArgs): Promise<void> {
  await db.execute(sql`
   ALTER TABLE "auth_tokens" ALTER COLUMN "purpose" SET DATA TYPE text;
  DROP TYPE "public"."enum_auth_tokens_purpose";
  CREATE TYPE "public"."enum_auth_tokens_purpose" AS ENUM('magic_link', 'verify_email');
  ALTER TABLE "auth_tokens" ALTER COLUMN "purpose" SET DATA TYPE "public"."enum_auth_tokens_purpose" USING "purpose"::"public"."enum_auth_tokens_purpose";
  ALTER TABLE "users" DROP COLUMN "pending_email";
  ALTER TABLE "user_subscriptions" DROP COLUMN "processor_snapshot_at";
  ALTER TABLE "payment_history" DROP COLUMN "refunded_amount";
  ALTER TABLE "payment_history" DROP COLUMN "dispute_status";
  DROP TYPE "public"."enum_payment_history_dispute_status";`)
}
