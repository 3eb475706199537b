-- DropIndex
DROP INDEX "field_company_id_min_lon_max_lon_idx";

-- DropIndex
DROP INDEX "field_company_id_min_lat_max_lat_idx";

-- CreateIndex
CREATE INDEX "field_company_id_min_lon_max_lon_min_lat_max_lat_idx" ON "field"("company_id", "min_lon", "max_lon", "min_lat", "max_lat");

-- CreateIndex
CREATE INDEX "field_company_id_min_lat_max_lat_min_lon_max_lon_idx" ON "field"("company_id", "min_lat", "max_lat", "min_lon", "max_lon");
