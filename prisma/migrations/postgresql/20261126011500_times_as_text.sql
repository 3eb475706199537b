-- SQLite only: PostgreSQL keeps times as timestamps, whoever wrote them. Kept so that both lists
-- of migrations stay alike.
SELECT 1;
