-- CreateTable
CREATE TABLE "company" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "name" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "settings_json" TEXT NOT NULL DEFAULT '{}'
);

-- CreateTable
CREATE TABLE "user" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "email" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "password_salt" TEXT NOT NULL,
    "first_name" TEXT,
    "last_name" TEXT,
    "company_id" INTEGER NOT NULL,
    "role" TEXT NOT NULL DEFAULT 'operator',
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "is_verified" BOOLEAN NOT NULL DEFAULT false,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL,
    "last_login" DATETIME,
    "language" TEXT NOT NULL DEFAULT 'ru',
    "settings_json" TEXT NOT NULL DEFAULT '{}',
    CONSTRAINT "user_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "company" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "session" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "token_hash" TEXT NOT NULL,
    "user_id" INTEGER NOT NULL,
    "company_id" INTEGER NOT NULL,
    "remember" BOOLEAN NOT NULL DEFAULT false,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" DATETIME NOT NULL,
    "ip" TEXT,
    "user_agent" TEXT,
    CONSTRAINT "session_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "user" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "session_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "company" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "login_attempt" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "email" TEXT NOT NULL,
    "ip" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "owner" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "company_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL,
    CONSTRAINT "owner_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "company" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "field" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "company_id" INTEGER NOT NULL,
    "owner_id" INTEGER,
    "name" TEXT NOT NULL,
    "area" REAL NOT NULL,
    "status" TEXT,
    "parcel_number" TEXT,
    "geometry" TEXT NOT NULL,
    "attributes_json" TEXT NOT NULL DEFAULT '{}',
    "min_lon" REAL NOT NULL,
    "min_lat" REAL NOT NULL,
    "max_lon" REAL NOT NULL,
    "max_lat" REAL NOT NULL,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL,
    CONSTRAINT "field_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "company" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "field_owner_id_fkey" FOREIGN KEY ("owner_id") REFERENCES "owner" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "task" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "company_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "progress" TEXT,
    "percent" INTEGER NOT NULL DEFAULT 0,
    "payload_json" TEXT NOT NULL DEFAULT '{}',
    "result_json" TEXT,
    "error" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "field_id" INTEGER,
    "scan_id" INTEGER,
    "created_by" INTEGER,
    "locked_by" TEXT,
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL,
    "started_at" DATETIME,
    "finished_at" DATETIME,
    CONSTRAINT "task_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "company" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "task_field_id_fkey" FOREIGN KEY ("field_id") REFERENCES "field" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "scan" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "company_id" INTEGER NOT NULL,
    "field_id" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "file_name" TEXT,
    "index_name" TEXT,
    "captured_at" DATETIME,
    "stats_json" TEXT,
    "histogram_json" TEXT,
    "bounds_json" TEXT,
    "data_path" TEXT,
    "crop_type" TEXT,
    "crop_json" TEXT,
    "details_json" TEXT NOT NULL DEFAULT '{}',
    "created_at" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" DATETIME NOT NULL,
    CONSTRAINT "scan_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "company" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "scan_field_id_fkey" FOREIGN KEY ("field_id") REFERENCES "field" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "zone" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "company_id" INTEGER NOT NULL,
    "scan_id" INTEGER,
    "field_id" INTEGER NOT NULL,
    "class_index" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "min_value" REAL,
    "max_value" REAL,
    "mean_value" REAL,
    "area_ha" REAL NOT NULL,
    "color" TEXT,
    "geometry" TEXT NOT NULL,
    CONSTRAINT "zone_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "company" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "zone_scan_id_fkey" FOREIGN KEY ("scan_id") REFERENCES "scan" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "zone_field_id_fkey" FOREIGN KEY ("field_id") REFERENCES "field" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "company_name_key" ON "company"("name");

-- CreateIndex
CREATE UNIQUE INDEX "company_slug_key" ON "company"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "user_email_key" ON "user"("email");

-- CreateIndex
CREATE INDEX "user_company_id_idx" ON "user"("company_id");

-- CreateIndex
CREATE UNIQUE INDEX "session_token_hash_key" ON "session"("token_hash");

-- CreateIndex
CREATE INDEX "session_user_id_idx" ON "session"("user_id");

-- CreateIndex
CREATE INDEX "session_expires_at_idx" ON "session"("expires_at");

-- CreateIndex
CREATE INDEX "login_attempt_email_created_at_idx" ON "login_attempt"("email", "created_at");

-- CreateIndex
CREATE INDEX "login_attempt_ip_created_at_idx" ON "login_attempt"("ip", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "owner_company_id_name_key" ON "owner"("company_id", "name");

-- CreateIndex
CREATE INDEX "field_company_id_min_lon_max_lon_idx" ON "field"("company_id", "min_lon", "max_lon");

-- CreateIndex
CREATE INDEX "field_company_id_min_lat_max_lat_idx" ON "field"("company_id", "min_lat", "max_lat");

-- CreateIndex
CREATE INDEX "field_company_id_owner_id_idx" ON "field"("company_id", "owner_id");

-- CreateIndex
CREATE INDEX "field_company_id_status_idx" ON "field"("company_id", "status");

-- CreateIndex
CREATE INDEX "task_status_created_at_idx" ON "task"("status", "created_at");

-- CreateIndex
CREATE INDEX "task_company_id_created_at_idx" ON "task"("company_id", "created_at");

-- CreateIndex
CREATE INDEX "scan_company_id_field_id_created_at_idx" ON "scan"("company_id", "field_id", "created_at");

-- CreateIndex
CREATE INDEX "zone_company_id_scan_id_idx" ON "zone"("company_id", "scan_id");

-- CreateIndex
CREATE INDEX "zone_company_id_field_id_idx" ON "zone"("company_id", "field_id");
