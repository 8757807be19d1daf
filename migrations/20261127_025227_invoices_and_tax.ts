import { MigrateUpArgs, MigrateDownArgs, sql } from '@payloadcms/db-postgres'

export async function up({ db, payload, req }: MigrateUpArgs): Promise<void> {
  await db.execute(sql`
   ALTER TABLE "payment_history" ADD COLUMN "plan_id" integer;
  ALTER TABLE "payment_history" ADD COLUMN "tax_amount" numeric;
  ALTER TABLE "payment_history" ADD COLUMN "invoice_pdf" varchar;
  ALTER TABLE "payment_history" ADD COLUMN "invoice_number" varchar;
  ALTER TABLE "payment_history" ADD COLUMN "processor_invoice_id" varchar;
  ALTER TABLE "payment_history" ADD CONSTRAINT "payment_history_plan_id_plans_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."plans"("id") ON DELETE set null ON UPDATE no action;
  CREATE INDEX "payment_history_plan_idx" ON "payment_history" USING btree ("plan_id");
  CREATE INDEX "payment_history_invoice_number_idx" ON "payment_history" USING btree ("invoice_number");
  CREATE INDEX "payment_history_processor_invoice_id_idx" ON "payment_history" USING btree ("processor_invoice_id");`)
}

export async function down({ db, payload, req }: MigrateDownArgs): Promise<void> {
  await db.execute(sql`
   ALTER TABLE "payment_history" DROP CONSTRAINT "payment_history_plan_id_plans_id_fk";
  
  DROP INDEX "payment_history_plan_idx";
  DROP INDEX "payment_history_invoice_number_idx";
  DROP INDEX "payment_history_processor_invoice_id_idx";
  ALTER TABLE "payment_history" DROP COLUMN "plan_id";
  ALTER TABLE "payment_history" DROP COLUMN "tax_amount";
  ALTER TABLE "payment_history" DROP COLUMN "invoice_pdf";
  ALTER TABLE "payment_history" DROP COLUMN "invoice_number";
  ALTER TABLE "payment_history" DROP COLUMN "processor_invoice_id";`)
}
