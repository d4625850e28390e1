-- +goose Up
-- Outbox of Redis steps that failed after an order's state change committed: the
-- order's seats must be made to match its status (sold when paid, free when it ended).
-- A worker retries each row with back-off until the step succeeds; reconciliation is
-- the backstop.
CREATE TABLE seat_syncs (
  order_id        BIGINT UNSIGNED NOT NULL PRIMARY KEY,
  attempts        INT UNSIGNED NOT NULL DEFAULT 0,
  last_error      VARCHAR(300) NOT NULL DEFAULT '',
  created_at      DATETIME(6) NOT NULL,
  next_attempt_at DATETIME(6) NOT NULL,
  KEY ix_seat_syncs_next (next_attempt_at),
  CONSTRAINT fk_seat_syncs_order FOREIGN KEY (order_id) REFERENCES orders (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE seat_syncs;
