import { MigrateUpArgs, MigrateDownArgs, sql } from '@payloadcms/db-postgres'

export async function up({ db, payload, req }: MigrateUpArgs): Promise<void> {
  await db.execute(sql`
   CREATE TYPE "public"."enum_oauth_identities_provider" AS ENUM('github', 'google');
  CREATE TABLE "oauth_identities" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"provider" "enum_oauth_identities_provider" NOT NULL,
  	"subject" varchar NOT NULL,
  	"email" varchar,
  	"user_id" integer NOT NULL,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL
  );
  
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "oauth_identities_id" integer;
  ALTER TABLE "oauth_identities" ADD CONSTRAINT "oauth_identities_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;
  CREATE INDEX "oauth_identities_user_idx" ON "oauth_identities" USING btree ("user_id");
  CREATE INDEX "oauth_identities_updated_at_idx" ON "oauth_identities" USING btree ("updated_at");
  CREATE INDEX "oauth_identities_created_at_idx" ON "oauth_identities" USING btree ("created_at");
  CREATE UNIQUE INDEX "provider_subject_idx" ON "oauth_identities" USING btree ("provider","subject");
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_oauth_identities_fk" FOREIGN KEY ("oauth_identities_id") REFERENCES "public"."oauth_identities"("id") ON DELETE cascade ON UPDATE no action;
  CREATE INDEX "payload_locked_documents_rels_oauth_identities_id_idx" ON "payload_locked_documents_rels" USING btree ("oauth_identities_id");`)
}

export async function down({ db, payload, req }: MigrateDownArgs): Promise<void> {
  await db.execute(sql`
   ALTER TABLE "oauth_identities" DISABLE ROW LEVEL SECURITY;
  DROP TABLE "oauth_identities" CASCADE;
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_oauth_identities_fk";
  
  DROP INDEX "payload_locked_documents_rels_oauth_identities_id_idx";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "oauth_identities_id";
  DROP TYPE "public"."enum_oauth_identities_provider";`)
}
