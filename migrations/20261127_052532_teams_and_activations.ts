import { MigrateUpArgs, MigrateDownArgs, sql } from '@payloadcms/db-postgres'

export async function up({ db, payload, req }: MigrateUpArgs): Promise<void> {
  await db.execute(sql`
   CREATE TYPE "public"."enum_license_seats_status" AS ENUM('pending', 'claimed', 'revoked');
  CREATE TYPE "public"."enum_license_activations_deactivated_by" AS ENUM('key', 'owner', 'staff');
  CREATE TABLE "license_seats" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"license_id" integer NOT NULL,
  	"email" varchar NOT NULL,
  	"status" "enum_license_seats_status" DEFAULT 'pending' NOT NULL,
  	"member_id" integer,
  	"claim_token_hash" varchar,
  	"claim_expires_at" timestamp(3) with time zone,
  	"claimed_at" timestamp(3) with time zone,
  	"revoked_at" timestamp(3) with time zone,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  CREATE TABLE "license_activations" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"license_id" integer NOT NULL,
  	"fingerprint" varchar NOT NULL,
  	"label" varchar,
  	"last_validated_at" timestamp(3) with time zone,
  	"deactivated_at" timestamp(3) with time zone,
  	"deactivated_by" "enum_license_activations_deactivated_by",
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  ALTER TABLE "plans" ADD COLUMN "max_seats" numeric DEFAULT 1;
  ALTER TABLE "plans" ADD COLUMN "max_activations" numeric;
  ALTER TABLE "licenses" ADD COLUMN "seats" numeric DEFAULT 1;
  ALTER TABLE "user_subscriptions" ADD COLUMN "quantity" numeric DEFAULT 1;
  ALTER TABLE "one_time_purchases" ADD COLUMN "quantity" numeric DEFAULT 1;
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "license_seats_id" integer;
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "license_activations_id" integer;
  ALTER TABLE "license_seats" ADD CONSTRAINT "license_seats_license_id_licenses_id_fk" FOREIGN KEY ("license_id") REFERENCES "public"."licenses"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "license_seats" ADD CONSTRAINT "license_seats_member_id_users_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "license_activations" ADD CONSTRAINT "license_activations_license_id_licenses_id_fk" FOREIGN KEY ("license_id") REFERENCES "public"."licenses"("id") ON DELETE set null ON UPDATE no action;
  CREATE INDEX "license_seats_license_idx" ON "license_seats" USING btree ("license_id");
  CREATE INDEX "license_seats_email_idx" ON "license_seats" USING btree ("email");
  CREATE INDEX "license_seats_status_idx" ON "license_seats" USING btree ("status");
  CREATE INDEX "license_seats_member_idx" ON "license_seats" USING btree ("member_id");
  CREATE INDEX "license_seats_claim_token_hash_idx" ON "license_seats" USING btree ("claim_token_hash");
  CREATE INDEX "license_seats_updated_at_idx" ON "license_seats" USING btree ("updated_at");
  CREATE INDEX "license_seats_created_at_idx" ON "license_seats" USING btree ("created_at");
  CREATE INDEX "license_activations_license_idx" ON "license_activations" USING btree ("license_id");
  CREATE INDEX "license_activations_fingerprint_idx" ON "license_activations" USING btree ("fingerprint");
  CREATE INDEX "license_activations_deactivated_at_idx" ON "license_activations" USING btree ("deactivated_at");
  CREATE INDEX "license_activations_updated_at_idx" ON "license_activations" USING btree ("updated_at");
  CREATE INDEX "license_activations_created_at_idx" ON "license_activations" USING btree ("created_at");
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_license_seats_fk" FOREIGN KEY ("license_seats_id") REFERENCES "public"."license_seats"("id") ON DELETE cascade ON UPDATE no action;
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_license_activations_fk" FOREIGN KEY ("license_activations_id") REFERENCES "public"."license_activations"("id") ON DELETE cascade ON UPDATE no action;
  CREATE INDEX "payload_locked_documents_rels_license_seats_id_idx" ON "payload_locked_documents_rels" USING btree ("license_seats_id");
  CREATE INDEX "payload_locked_documents_rels_license_activations_id_idx" ON "payload_locked_documents_rels" USING btree ("license_activations_id");`)
  // Written by hand: the seeded lifetime plans sell team licenses (src/plans/catalog.ts). A plan that
  // exists keeps what staff edited; this column is new, so nothing was edited yet.
  await db.execute(sql`UPDATE "plans" SET "max_seats" = 5 WHERE "slug" = 'standard';
  UPDATE "plans" SET "max_seats" = 10 WHERE "slug" = 'ultimate';`)
}

export async function down({ db, payload, req }: MigrateDownArgs): Promise<void> {
  await db.execute(sql`
   ALTER TABLE "license_seats" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "license_activations" DISABLE ROW LEVEL SECURITY;
  DROP TABLE "license_seats" CASCADE;
  DROP TABLE "license_activations" CASCADE;
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_license_seats_fk";
  
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_license_activations_fk";
  
  DROP INDEX "payload_locked_documents_rels_license_seats_id_idx";
  DROP INDEX "payload_locked_documents_rels_license_activations_id_idx";
  ALTER TABLE "plans" DROP COLUMN "max_seats";
  ALTER TABLE "plans" DROP COLUMN "max_activations";
  ALTER TABLE "licenses" DROP COLUMN "seats";
  ALTER TABLE "user_subscriptions" DROP COLUMN "quantity";
  ALTER TABLE "one_time_purchases" DROP COLUMN "quantity";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "license_seats_id";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "license_activations_id";
  DROP TYPE "public"."enum_license_seats_status";
  DROP TYPE "public"."enum_license_activations_deactivated_by";`)
}
