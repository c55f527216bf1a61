CREATE TABLE "blobs" (
	"hash" text PRIMARY KEY NOT NULL,
	"byte_size" bigint NOT NULL,
	"encoding" text NOT NULL,
	"data" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "inventories" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"identity" text NOT NULL,
	"registry" text,
	"package_name" text,
	"version" text,
	"state" text DEFAULT 'pending' NOT NULL,
	"failure" text,
	"attempt" integer DEFAULT 0 NOT NULL,
	"file_count" integer,
	"total_bytes" bigint,
	"facts" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"preparation_ms" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	CONSTRAINT "inventories_state_check" CHECK ("inventories"."state" IN ('pending', 'preparing', 'ready', 'failed', 'unavailable'))
);
--> statement-breakpoint
CREATE TABLE "inventory_entries" (
	"inventory_id" uuid NOT NULL,
	"path" text NOT NULL,
	"kind" text NOT NULL,
	"byte_size" bigint,
	"line_count" integer,
	"content_hash" text,
	"language" text,
	"file_type" text,
	"intent" text,
	"title" text,
	CONSTRAINT "inventory_entries_inventory_id_path_pk" PRIMARY KEY("inventory_id","path")
);
--> statement-breakpoint
ALTER TABLE "inventory_entries" ADD CONSTRAINT "inventory_entries_inventory_id_inventories_id_fk" FOREIGN KEY ("inventory_id") REFERENCES "public"."inventories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "inventories_identity_idx" ON "inventories" USING btree ("identity");--> statement-breakpoint
CREATE INDEX "inventories_package_idx" ON "inventories" USING btree ("registry","package_name");--> statement-breakpoint
CREATE INDEX "inventories_unfinished_idx" ON "inventories" USING btree ("updated_at") WHERE "inventories"."state" IN ('pending', 'preparing');