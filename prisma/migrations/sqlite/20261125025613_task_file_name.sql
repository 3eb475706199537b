-- AlterTable
ALTER TABLE "task" ADD COLUMN "file_name" TEXT;

-- Tasks made before: the name was only in the payload.
UPDATE "task" SET "file_name" = json_extract("payload_json", '$.fileName') WHERE json_valid("payload_json");
