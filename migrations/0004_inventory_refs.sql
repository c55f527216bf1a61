CREATE TABLE "inventory_refs" (
	"repository" text NOT NULL,
	"ref" text NOT NULL,
	"inventory_id" uuid NOT NULL,
	"commit" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "inventory_refs_repository_ref_pk" PRIMARY KEY("repository","ref")
);
--> statement-breakpoint
ALTER TABLE "inventory_refs" ADD CONSTRAINT "inventory_refs_inventory_id_inventories_id_fk" FOREIGN KEY ("inventory_id") REFERENCES "public"."inventories"("id") ON DELETE cascade ON UPDATE no action;