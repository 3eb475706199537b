-- Times as the service writes them (ISO 8601 text, '2026-03-20T10:15:00.000+00:00'). Upgrades from
-- v2026.2 wrote epoch milliseconds, and rows inserted by SQL took CURRENT_TIMESTAMP's '2026-03-20 10:15:00'.
-- SQLite orders every number before every text, so date filters (a year's statistics) missed the
-- upgraded rows. Data only: the schema is unchanged.
UPDATE "company" SET "created_at" = strftime('%Y-%m-%dT%H:%M:%f+00:00', "created_at" / 1000.0, 'unixepoch') WHERE typeof("created_at") = 'integer';
UPDATE "company" SET "created_at" = replace("created_at", ' ', 'T') || '.000+00:00' WHERE "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]';
UPDATE "user" SET "created_at" = strftime('%Y-%m-%dT%H:%M:%f+00:00', "created_at" / 1000.0, 'unixepoch') WHERE typeof("created_at") = 'integer';
UPDATE "user" SET "created_at" = replace("created_at", ' ', 'T') || '.000+00:00' WHERE "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]';
UPDATE "user" SET "updated_at" = strftime('%Y-%m-%dT%H:%M:%f+00:00', "updated_at" / 1000.0, 'unixepoch') WHERE typeof("updated_at") = 'integer';
UPDATE "user" SET "updated_at" = replace("updated_at", ' ', 'T') || '.000+00:00' WHERE "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]';
UPDATE "user" SET "last_login" = strftime('%Y-%m-%dT%H:%M:%f+00:00', "last_login" / 1000.0, 'unixepoch') WHERE typeof("last_login") = 'integer';
UPDATE "user" SET "last_login" = replace("last_login", ' ', 'T') || '.000+00:00' WHERE "last_login" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]';
UPDATE "session" SET "created_at" = strftime('%Y-%m-%dT%H:%M:%f+00:00', "created_at" / 1000.0, 'unixepoch') WHERE typeof("created_at") = 'integer';
UPDATE "session" SET "created_at" = replace("created_at", ' ', 'T') || '.000+00:00' WHERE "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]';
UPDATE "session" SET "expires_at" = strftime('%Y-%m-%dT%H:%M:%f+00:00', "expires_at" / 1000.0, 'unixepoch') WHERE typeof("expires_at") = 'integer';
UPDATE "session" SET "expires_at" = replace("expires_at", ' ', 'T') || '.000+00:00' WHERE "expires_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]';
UPDATE "login_attempt" SET "created_at" = strftime('%Y-%m-%dT%H:%M:%f+00:00', "created_at" / 1000.0, 'unixepoch') WHERE typeof("created_at") = 'integer';
UPDATE "login_attempt" SET "created_at" = replace("created_at", ' ', 'T') || '.000+00:00' WHERE "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]';
UPDATE "owner" SET "created_at" = strftime('%Y-%m-%dT%H:%M:%f+00:00', "created_at" / 1000.0, 'unixepoch') WHERE typeof("created_at") = 'integer';
UPDATE "owner" SET "created_at" = replace("created_at", ' ', 'T') || '.000+00:00' WHERE "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]';
UPDATE "owner" SET "updated_at" = strftime('%Y-%m-%dT%H:%M:%f+00:00', "updated_at" / 1000.0, 'unixepoch') WHERE typeof("updated_at") = 'integer';
UPDATE "owner" SET "updated_at" = replace("updated_at", ' ', 'T') || '.000+00:00' WHERE "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]';
UPDATE "field" SET "created_at" = strftime('%Y-%m-%dT%H:%M:%f+00:00', "created_at" / 1000.0, 'unixepoch') WHERE typeof("created_at") = 'integer';
UPDATE "field" SET "created_at" = replace("created_at", ' ', 'T') || '.000+00:00' WHERE "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]';
UPDATE "field" SET "updated_at" = strftime('%Y-%m-%dT%H:%M:%f+00:00', "updated_at" / 1000.0, 'unixepoch') WHERE typeof("updated_at") = 'integer';
UPDATE "field" SET "updated_at" = replace("updated_at", ' ', 'T') || '.000+00:00' WHERE "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]';
UPDATE "task" SET "created_at" = strftime('%Y-%m-%dT%H:%M:%f+00:00', "created_at" / 1000.0, 'unixepoch') WHERE typeof("created_at") = 'integer';
UPDATE "task" SET "created_at" = replace("created_at", ' ', 'T') || '.000+00:00' WHERE "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]';
UPDATE "task" SET "updated_at" = strftime('%Y-%m-%dT%H:%M:%f+00:00', "updated_at" / 1000.0, 'unixepoch') WHERE typeof("updated_at") = 'integer';
UPDATE "task" SET "updated_at" = replace("updated_at", ' ', 'T') || '.000+00:00' WHERE "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]';
UPDATE "task" SET "started_at" = strftime('%Y-%m-%dT%H:%M:%f+00:00', "started_at" / 1000.0, 'unixepoch') WHERE typeof("started_at") = 'integer';
UPDATE "task" SET "started_at" = replace("started_at", ' ', 'T') || '.000+00:00' WHERE "started_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]';
UPDATE "task" SET "finished_at" = strftime('%Y-%m-%dT%H:%M:%f+00:00', "finished_at" / 1000.0, 'unixepoch') WHERE typeof("finished_at") = 'integer';
UPDATE "task" SET "finished_at" = replace("finished_at", ' ', 'T') || '.000+00:00' WHERE "finished_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]';
UPDATE "scan" SET "captured_at" = strftime('%Y-%m-%dT%H:%M:%f+00:00', "captured_at" / 1000.0, 'unixepoch') WHERE typeof("captured_at") = 'integer';
UPDATE "scan" SET "captured_at" = replace("captured_at", ' ', 'T') || '.000+00:00' WHERE "captured_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]';
UPDATE "scan" SET "created_at" = strftime('%Y-%m-%dT%H:%M:%f+00:00', "created_at" / 1000.0, 'unixepoch') WHERE typeof("created_at") = 'integer';
UPDATE "scan" SET "created_at" = replace("created_at", ' ', 'T') || '.000+00:00' WHERE "created_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]';
UPDATE "scan" SET "updated_at" = strftime('%Y-%m-%dT%H:%M:%f+00:00', "updated_at" / 1000.0, 'unixepoch') WHERE typeof("updated_at") = 'integer';
UPDATE "scan" SET "updated_at" = replace("updated_at", ' ', 'T') || '.000+00:00' WHERE "updated_at" GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] [0-9][0-9]:[0-9][0-9]:[0-9][0-9]';
