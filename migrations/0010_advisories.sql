CREATE TABLE "advisory_documents" (
	"generation" bigint NOT NULL,
	"id" text NOT NULL,
	"modified" timestamp with time zone NOT NULL,
	"document" text NOT NULL,
	CONSTRAINT "advisory_documents_generation_id_pk" PRIMARY KEY("generation","id")
);
--> statement-breakpoint
CREATE TABLE "advisory_generations" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"ecosystem" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "advisory_packages" (
	"generation" bigint NOT NULL,
	"name" text NOT NULL,
	"advisory_id" text NOT NULL,
	CONSTRAINT "advisory_packages_generation_name_advisory_id_pk" PRIMARY KEY("generation","name","advisory_id")
);
--> statement-breakpoint
CREATE TABLE "advisory_sources" (
	"ecosystem" text PRIMARY KEY NOT NULL,
	"state" text NOT NULL,
	"reason" text,
	"generation" bigint,
	"etag" text,
	"last_modified" text,
	"origin" text,
	"advisories" integer DEFAULT 0 NOT NULL,
	"modified_max" timestamp with time zone,
	"synced_at" timestamp with time zone,
	"attempted_at" timestamp with time zone,
	CONSTRAINT "advisory_sources_state_check" CHECK ("advisory_sources"."state" in ('ready', 'syncing', 'failed', 'empty'))
);
--> statement-breakpoint
ALTER TABLE "advisory_documents" ADD CONSTRAINT "advisory_documents_generation_advisory_generations_id_fk" FOREIGN KEY ("generation") REFERENCES "public"."advisory_generations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "advisory_packages" ADD CONSTRAINT "advisory_packages_generation_advisory_generations_id_fk" FOREIGN KEY ("generation") REFERENCES "public"."advisory_generations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "advisory_sources" ADD CONSTRAINT "advisory_sources_generation_advisory_generations_id_fk" FOREIGN KEY ("generation") REFERENCES "public"."advisory_generations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
-- Advisory documents are read whole by id, never searched inside: compact JSON text compressed
-- with lz4 where the server has it (as the job and file texts, migration 0008) writes faster and
-- smaller than jsonb.
DO $$
BEGIN
  ALTER TABLE "advisory_documents" ALTER COLUMN "document" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 is not available on this server: advisory documents keep the default compression';
END $$;
