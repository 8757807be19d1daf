import { MigrateUpArgs, MigrateDownArgs, sql } from '@payloadcms/db-postgres'

export async function up({ db, payload, req }: MigrateUpArgs): Promise<void> {
  await db.execute(sql`
   ALTER TABLE "one_time_purchases" ADD COLUMN "tax_amount" numeric;
  ALTER TABLE "license_changes" ADD COLUMN "tax_amount" numeric;`)
  // Payments made before the column: the tax their invoice recorded (a one-time payment's payment_history
  // row is keyed by its payment intent), else none, which is what upgrades credited until now.
  await db.execute(sql`
   UPDATE "one_time_purchases" SET "tax_amount" = COALESCE(
     (SELECT "tax_amount" FROM "payment_history" WHERE "payment_history"."processor_payment_id" = "one_time_purchases"."processor_payment_intent_id"), 0);
  UPDATE "license_changes" SET "tax_amount" = COALESCE(
     (SELECT "tax_amount" FROM "payment_history" WHERE "payment_history"."processor_payment_id" = "license_changes"."processor_payment_intent_id"), 0);`)
}

export async function down({ db, payload, req }: MigrateDownArgs): Promise<void> {
  await db.execute(sql`
   ALTER TABLE "one_time_purchases" DROP COLUMN "tax_amount";
  ALTER TABLE "license_changes" DROP COLUMN "tax_amount";`)
}
