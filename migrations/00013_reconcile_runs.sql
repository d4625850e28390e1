-- +goose Up
-- One reconciliation run: who or what started it, over which shows, and what it did.
-- status: running, done, failed (an error stopped it) or lease_lost (another instance
-- took over; the run stopped writing).
CREATE TABLE reconcile_runs (
  id             BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  run_trigger    ENUM('manual','cron','cli') NOT NULL,
  dry_run        TINYINT(1) NOT NULL DEFAULT 0,
  actor_user_id  BIGINT UNSIGNED NULL,
  scope_show_id  BIGINT UNSIGNED NULL,
  status         ENUM('running','done','failed','lease_lost') NOT NULL DEFAULT 'running',
  error          VARCHAR(500) NULL,
  shows_checked  INT UNSIGNED NOT NULL DEFAULT 0,
  findings_count INT UNSIGNED NOT NULL DEFAULT 0,
  fixed          INT UNSIGNED NOT NULL DEFAULT 0,
  started_at     DATETIME(6) NOT NULL,
  finished_at    DATETIME(6) NULL,
  KEY ix_reconcile_runs_started (started_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE reconcile_runs;
