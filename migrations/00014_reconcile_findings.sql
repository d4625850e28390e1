-- +goose Up
-- What one reconciliation run found: a kind of drift, where (show, seat, order) and
-- the action it calls for; fixed says whether it was applied (0 in a dry run or when the
-- fix could not be applied).
CREATE TABLE reconcile_findings (
  id       BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  run_id   BIGINT UNSIGNED NOT NULL,
  kind     VARCHAR(40) NOT NULL,
  show_id  BIGINT UNSIGNED NULL,
  seat_id  BIGINT UNSIGNED NULL,
  order_no VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NULL,
  action   VARCHAR(40) NOT NULL,
  fixed    TINYINT(1) NOT NULL DEFAULT 0,
  detail   VARCHAR(300) NOT NULL DEFAULT '',
  KEY ix_reconcile_findings_run (run_id, id),
  CONSTRAINT fk_reconcile_findings_run FOREIGN KEY (run_id) REFERENCES reconcile_runs (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE reconcile_findings;
