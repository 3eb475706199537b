-- DropIndex
DROP INDEX "field_company_id_owner_id_idx";

-- DropIndex
DROP INDEX "field_company_id_status_idx";

-- CreateIndex
CREATE INDEX "field_company_id_owner_id_area_idx" ON "field"("company_id", "owner_id", "area");

-- CreateIndex
CREATE INDEX "field_company_id_status_area_idx" ON "field"("company_id", "status", "area");
