import { MigrateUpArgs, MigrateDownArgs, sql } from '@payloadcms/db-postgres'

export async function up({ db, payload, req }: MigrateUpArgs): Promise<void> {
  await db.execute(sql`
   CREATE TYPE "public"."enum_posts_required_feature" AS ENUM('basic', 'templates', 'support', 'api', 'analytics', 'custom_domain', 'advanced');
  CREATE TYPE "public"."enum_posts_status" AS ENUM('draft', 'published');
  CREATE TYPE "public"."enum__posts_v_version_required_feature" AS ENUM('basic', 'templates', 'support', 'api', 'analytics', 'custom_domain', 'advanced');
  CREATE TYPE "public"."enum__posts_v_version_status" AS ENUM('draft', 'published');
  CREATE TYPE "public"."enum_changelog_entries_change_types" AS ENUM('added', 'changed', 'fixed', 'security');
  CREATE TYPE "public"."enum_changelog_entries_status" AS ENUM('draft', 'published');
  CREATE TYPE "public"."enum__changelog_entries_v_version_change_types" AS ENUM('added', 'changed', 'fixed', 'security');
  CREATE TYPE "public"."enum__changelog_entries_v_version_status" AS ENUM('draft', 'published');
  CREATE TABLE "posts" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"title" varchar,
  	"summary" varchar,
  	"body" jsonb,
  	"slug" varchar,
  	"published_at" timestamp(3) with time zone,
  	"author" varchar,
  	"cover_id" integer,
  	"required_feature" "enum_posts_required_feature",
  	"source_path" varchar,
  	"source_content_hash" varchar,
  	"source_imported_at" timestamp(3) with time zone,
  	"source_edited_after_import" boolean DEFAULT false,
  	"meta_title" varchar,
  	"meta_description" varchar,
  	"meta_image_id" integer,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"_status" "enum_posts_status" DEFAULT 'draft'
  );
  
  CREATE TABLE "posts_texts" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"order" integer NOT NULL,
  	"parent_id" integer NOT NULL,
  	"path" varchar NOT NULL,
  	"text" varchar
  );
  
  CREATE TABLE "_posts_v" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"parent_id" integer,
  	"version_title" varchar,
  	"version_summary" varchar,
  	"version_body" jsonb,
  	"version_slug" varchar,
  	"version_published_at" timestamp(3) with time zone,
  	"version_author" varchar,
  	"version_cover_id" integer,
  	"version_required_feature" "enum__posts_v_version_required_feature",
  	"version_source_path" varchar,
  	"version_source_content_hash" varchar,
  	"version_source_imported_at" timestamp(3) with time zone,
  	"version_source_edited_after_import" boolean DEFAULT false,
  	"version_meta_title" varchar,
  	"version_meta_description" varchar,
  	"version_meta_image_id" integer,
  	"version_updated_at" timestamp(3) with time zone,
  	"version_created_at" timestamp(3) with time zone,
  	"version__status" "enum__posts_v_version_status" DEFAULT 'draft',
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"latest" boolean,
  	"autosave" boolean
  );
  
  CREATE TABLE "_posts_v_texts" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"order" integer NOT NULL,
  	"parent_id" integer NOT NULL,
  	"path" varchar NOT NULL,
  	"text" varchar
  );
  
  CREATE TABLE "changelog_entries_change_types" (
  	"order" integer NOT NULL,
  	"parent_id" integer NOT NULL,
  	"value" "enum_changelog_entries_change_types",
  	"id" serial PRIMARY KEY NOT NULL
  );
  
  CREATE TABLE "changelog_entries" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"title" varchar,
  	"version" varchar,
  	"summary" varchar,
  	"body" jsonb,
  	"slug" varchar,
  	"published_at" timestamp(3) with time zone,
  	"release_id" integer,
  	"source_path" varchar,
  	"source_content_hash" varchar,
  	"source_imported_at" timestamp(3) with time zone,
  	"source_edited_after_import" boolean DEFAULT false,
  	"meta_title" varchar,
  	"meta_description" varchar,
  	"meta_image_id" integer,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"_status" "enum_changelog_entries_status" DEFAULT 'draft'
  );
  
  CREATE TABLE "_changelog_entries_v_version_change_types" (
  	"order" integer NOT NULL,
  	"parent_id" integer NOT NULL,
  	"value" "enum__changelog_entries_v_version_change_types",
  	"id" serial PRIMARY KEY NOT NULL
  );
  
  CREATE TABLE "_changelog_entries_v" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"parent_id" integer,
  	"version_title" varchar,
  	"version_version" varchar,
  	"version_summary" varchar,
  	"version_body" jsonb,
  	"version_slug" varchar,
  	"version_published_at" timestamp(3) with time zone,
  	"version_release_id" integer,
  	"version_source_path" varchar,
  	"version_source_content_hash" varchar,
  	"version_source_imported_at" timestamp(3) with time zone,
  	"version_source_edited_after_import" boolean DEFAULT false,
  	"version_meta_title" varchar,
  	"version_meta_description" varchar,
  	"version_meta_image_id" integer,
  	"version_updated_at" timestamp(3) with time zone,
  	"version_created_at" timestamp(3) with time zone,
  	"version__status" "enum__changelog_entries_v_version_status" DEFAULT 'draft',
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"latest" boolean,
  	"autosave" boolean
  );
  
  CREATE TABLE "media" (
  	"id" serial PRIMARY KEY NOT NULL,
  	"alt" varchar NOT NULL,
  	"source_hash" varchar,
  	"prefix" varchar DEFAULT 'media',
  	"_objectkey" varchar,
  	"updated_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"created_at" timestamp(3) with time zone DEFAULT now() NOT NULL,
  	"url" varchar,
  	"thumbnail_u_r_l" varchar,
  	"filename" varchar,
  	"mime_type" varchar,
  	"filesize" numeric,
  	"width" numeric,
  	"height" numeric,
  	"focal_x" numeric,
  	"focal_y" numeric,
  	"sizes_thumbnail_url" varchar,
  	"sizes_thumbnail_width" numeric,
  	"sizes_thumbnail_height" numeric,
  	"sizes_thumbnail_mime_type" varchar,
  	"sizes_thumbnail_filesize" numeric,
  	"sizes_thumbnail_filename" varchar,
  	"sizes_card_url" varchar,
  	"sizes_card_width" numeric,
  	"sizes_card_height" numeric,
  	"sizes_card_mime_type" varchar,
  	"sizes_card_filesize" numeric,
  	"sizes_card_filename" varchar,
  	"sizes_og_url" varchar,
  	"sizes_og_width" numeric,
  	"sizes_og_height" numeric,
  	"sizes_og_mime_type" varchar,
  	"sizes_og_filesize" numeric,
  	"sizes_og_filename" varchar
  );
  
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "posts_id" integer;
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "changelog_entries_id" integer;
  ALTER TABLE "payload_locked_documents_rels" ADD COLUMN "media_id" integer;
  ALTER TABLE "posts" ADD CONSTRAINT "posts_cover_id_media_id_fk" FOREIGN KEY ("cover_id") REFERENCES "public"."media"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "posts" ADD CONSTRAINT "posts_meta_image_id_media_id_fk" FOREIGN KEY ("meta_image_id") REFERENCES "public"."media"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "posts_texts" ADD CONSTRAINT "posts_texts_parent_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."posts"("id") ON DELETE cascade ON UPDATE no action;
  ALTER TABLE "_posts_v" ADD CONSTRAINT "_posts_v_parent_id_posts_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."posts"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "_posts_v" ADD CONSTRAINT "_posts_v_version_cover_id_media_id_fk" FOREIGN KEY ("version_cover_id") REFERENCES "public"."media"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "_posts_v" ADD CONSTRAINT "_posts_v_version_meta_image_id_media_id_fk" FOREIGN KEY ("version_meta_image_id") REFERENCES "public"."media"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "_posts_v_texts" ADD CONSTRAINT "_posts_v_texts_parent_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."_posts_v"("id") ON DELETE cascade ON UPDATE no action;
  ALTER TABLE "changelog_entries_change_types" ADD CONSTRAINT "changelog_entries_change_types_parent_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."changelog_entries"("id") ON DELETE cascade ON UPDATE no action;
  ALTER TABLE "changelog_entries" ADD CONSTRAINT "changelog_entries_release_id_releases_id_fk" FOREIGN KEY ("release_id") REFERENCES "public"."releases"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "changelog_entries" ADD CONSTRAINT "changelog_entries_meta_image_id_media_id_fk" FOREIGN KEY ("meta_image_id") REFERENCES "public"."media"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "_changelog_entries_v_version_change_types" ADD CONSTRAINT "_changelog_entries_v_version_change_types_parent_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."_changelog_entries_v"("id") ON DELETE cascade ON UPDATE no action;
  ALTER TABLE "_changelog_entries_v" ADD CONSTRAINT "_changelog_entries_v_parent_id_changelog_entries_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."changelog_entries"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "_changelog_entries_v" ADD CONSTRAINT "_changelog_entries_v_version_release_id_releases_id_fk" FOREIGN KEY ("version_release_id") REFERENCES "public"."releases"("id") ON DELETE set null ON UPDATE no action;
  ALTER TABLE "_changelog_entries_v" ADD CONSTRAINT "_changelog_entries_v_version_meta_image_id_media_id_fk" FOREIGN KEY ("version_meta_image_id") REFERENCES "public"."media"("id") ON DELETE set null ON UPDATE no action;
  CREATE UNIQUE INDEX "posts_slug_idx" ON "posts" USING btree ("slug");
  CREATE INDEX "posts_published_at_idx" ON "posts" USING btree ("published_at");
  CREATE INDEX "posts_cover_idx" ON "posts" USING btree ("cover_id");
  CREATE INDEX "posts_meta_meta_image_idx" ON "posts" USING btree ("meta_image_id");
  CREATE INDEX "posts_updated_at_idx" ON "posts" USING btree ("updated_at");
  CREATE INDEX "posts_created_at_idx" ON "posts" USING btree ("created_at");
  CREATE INDEX "posts__status_idx" ON "posts" USING btree ("_status");
  CREATE INDEX "posts_texts_order_parent" ON "posts_texts" USING btree ("order","parent_id");
  CREATE INDEX "_posts_v_parent_idx" ON "_posts_v" USING btree ("parent_id");
  CREATE INDEX "_posts_v_version_version_slug_idx" ON "_posts_v" USING btree ("version_slug");
  CREATE INDEX "_posts_v_version_version_published_at_idx" ON "_posts_v" USING btree ("version_published_at");
  CREATE INDEX "_posts_v_version_version_cover_idx" ON "_posts_v" USING btree ("version_cover_id");
  CREATE INDEX "_posts_v_version_meta_version_meta_image_idx" ON "_posts_v" USING btree ("version_meta_image_id");
  CREATE INDEX "_posts_v_version_version_updated_at_idx" ON "_posts_v" USING btree ("version_updated_at");
  CREATE INDEX "_posts_v_version_version_created_at_idx" ON "_posts_v" USING btree ("version_created_at");
  CREATE INDEX "_posts_v_version_version__status_idx" ON "_posts_v" USING btree ("version__status");
  CREATE INDEX "_posts_v_created_at_idx" ON "_posts_v" USING btree ("created_at");
  CREATE INDEX "_posts_v_updated_at_idx" ON "_posts_v" USING btree ("updated_at");
  CREATE INDEX "_posts_v_latest_idx" ON "_posts_v" USING btree ("latest");
  CREATE INDEX "_posts_v_autosave_idx" ON "_posts_v" USING btree ("autosave");
  CREATE INDEX "_posts_v_texts_order_parent" ON "_posts_v_texts" USING btree ("order","parent_id");
  CREATE INDEX "changelog_entries_change_types_order_idx" ON "changelog_entries_change_types" USING btree ("order");
  CREATE INDEX "changelog_entries_change_types_parent_idx" ON "changelog_entries_change_types" USING btree ("parent_id");
  CREATE UNIQUE INDEX "changelog_entries_version_idx" ON "changelog_entries" USING btree ("version");
  CREATE UNIQUE INDEX "changelog_entries_slug_idx" ON "changelog_entries" USING btree ("slug");
  CREATE INDEX "changelog_entries_published_at_idx" ON "changelog_entries" USING btree ("published_at");
  CREATE INDEX "changelog_entries_release_idx" ON "changelog_entries" USING btree ("release_id");
  CREATE INDEX "changelog_entries_meta_meta_image_idx" ON "changelog_entries" USING btree ("meta_image_id");
  CREATE INDEX "changelog_entries_updated_at_idx" ON "changelog_entries" USING btree ("updated_at");
  CREATE INDEX "changelog_entries_created_at_idx" ON "changelog_entries" USING btree ("created_at");
  CREATE INDEX "changelog_entries__status_idx" ON "changelog_entries" USING btree ("_status");
  CREATE INDEX "_changelog_entries_v_version_change_types_order_idx" ON "_changelog_entries_v_version_change_types" USING btree ("order");
  CREATE INDEX "_changelog_entries_v_version_change_types_parent_idx" ON "_changelog_entries_v_version_change_types" USING btree ("parent_id");
  CREATE INDEX "_changelog_entries_v_parent_idx" ON "_changelog_entries_v" USING btree ("parent_id");
  CREATE INDEX "_changelog_entries_v_version_version_version_idx" ON "_changelog_entries_v" USING btree ("version_version");
  CREATE INDEX "_changelog_entries_v_version_version_slug_idx" ON "_changelog_entries_v" USING btree ("version_slug");
  CREATE INDEX "_changelog_entries_v_version_version_published_at_idx" ON "_changelog_entries_v" USING btree ("version_published_at");
  CREATE INDEX "_changelog_entries_v_version_version_release_idx" ON "_changelog_entries_v" USING btree ("version_release_id");
  CREATE INDEX "_changelog_entries_v_version_meta_version_meta_image_idx" ON "_changelog_entries_v" USING btree ("version_meta_image_id");
  CREATE INDEX "_changelog_entries_v_version_version_updated_at_idx" ON "_changelog_entries_v" USING btree ("version_updated_at");
  CREATE INDEX "_changelog_entries_v_version_version_created_at_idx" ON "_changelog_entries_v" USING btree ("version_created_at");
  CREATE INDEX "_changelog_entries_v_version_version__status_idx" ON "_changelog_entries_v" USING btree ("version__status");
  CREATE INDEX "_changelog_entries_v_created_at_idx" ON "_changelog_entries_v" USING btree ("created_at");
  CREATE INDEX "_changelog_entries_v_updated_at_idx" ON "_changelog_entries_v" USING btree ("updated_at");
  CREATE INDEX "_changelog_entries_v_latest_idx" ON "_changelog_entries_v" USING btree ("latest");
  CREATE INDEX "_changelog_entries_v_autosave_idx" ON "_changelog_entries_v" USING btree ("autosave");
  CREATE INDEX "media_source_hash_idx" ON "media" USING btree ("source_hash");
  CREATE INDEX "media_updated_at_idx" ON "media" USING btree ("updated_at");
  CREATE INDEX "media_created_at_idx" ON "media" USING btree ("created_at");
  CREATE UNIQUE INDEX "media_filename_idx" ON "media" USING btree ("filename");
  CREATE INDEX "media_sizes_thumbnail_sizes_thumbnail_filename_idx" ON "media" USING btree ("sizes_thumbnail_filename");
  CREATE INDEX "media_sizes_card_sizes_card_filename_idx" ON "media" USING btree ("sizes_card_filename");
  CREATE INDEX "media_sizes_og_sizes_og_filename_idx" ON "media" USING btree ("sizes_og_filename");
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_posts_fk" FOREIGN KEY ("posts_id") REFERENCES "public"."posts"("id") ON DELETE cascade ON UPDATE no action;
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_changelog_entries_fk" FOREIGN KEY ("changelog_entries_id") REFERENCES "public"."changelog_entries"("id") ON DELETE cascade ON UPDATE no action;
  ALTER TABLE "payload_locked_documents_rels" ADD CONSTRAINT "payload_locked_documents_rels_media_fk" FOREIGN KEY ("media_id") REFERENCES "public"."media"("id") ON DELETE cascade ON UPDATE no action;
  CREATE INDEX "payload_locked_documents_rels_posts_id_idx" ON "payload_locked_documents_rels" USING btree ("posts_id");
  CREATE INDEX "payload_locked_documents_rels_changelog_entries_id_idx" ON "payload_locked_documents_rels" USING btree ("changelog_entries_id");
  CREATE INDEX "payload_locked_documents_rels_media_id_idx" ON "payload_locked_documents_rels" USING btree ("media_id");`)
}

export async function down({ db, payload, req }: MigrateDownArgs): Promise<void> {
  await db.execute(sql`
   ALTER TABLE "posts" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "posts_texts" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "_posts_v" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "_posts_v_texts" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "changelog_entries_change_types" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "changelog_entries" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "_changelog_entries_v_version_change_types" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "_changelog_entries_v" DISABLE ROW LEVEL SECURITY;
  ALTER TABLE "media" DISABLE ROW LEVEL SECURITY;
  DROP TABLE "posts" CASCADE;
  DROP TABLE "posts_texts" CASCADE;
  DROP TABLE "_posts_v" CASCADE;
  DROP TABLE "_posts_v_texts" CASCADE;
  DROP TABLE "changelog_entries_change_types" CASCADE;
  DROP TABLE "changelog_entries" CASCADE;
  DROP TABLE "_changelog_entries_v_version_change_types" CASCADE;
  DROP TABLE "_changelog_entries_v" CASCADE;
  DROP TABLE "media" CASCADE;
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_posts_fk";
  
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_changelog_entries_fk";
  
  ALTER TABLE "payload_locked_documents_rels" DROP CONSTRAINT "payload_locked_documents_rels_media_fk";
  
  DROP INDEX "payload_locked_documents_rels_posts_id_idx";
  DROP INDEX "payload_locked_documents_rels_changelog_entries_id_idx";
  DROP INDEX "payload_locked_documents_rels_media_id_idx";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "posts_id";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "changelog_entries_id";
  ALTER TABLE "payload_locked_documents_rels" DROP COLUMN "media_id";
  DROP TYPE "public"."enum_posts_required_feature";
  DROP TYPE "public"."enum_posts_status";
  DROP TYPE "public"."enum__posts_v_version_required_feature";
  DROP TYPE "public"."enum__posts_v_version_status";
  DROP TYPE "public"."enum_changelog_entries_change_types";
  DROP TYPE "public"."enum_changelog_entries_status";
  DROP TYPE "public"."enum__changelog_entries_v_version_change_types";
  DROP TYPE "public"."enum__changelog_entries_v_version_status";`)
}
