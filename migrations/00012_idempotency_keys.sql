-- +goose Up
-- A successful order creation remembered per (user, Idempotency-Key) for 24 hours.
CREATE TABLE idempotency_keys (
  user_id      BIGINT UNSIGNED NOT NULL,
  idem_key     VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  request_hash BINARY(32) NOT NULL,
  order_id     BIGINT UNSIGNED NOT NULL,
  created_at   DATETIME(6) NOT NULL,
  PRIMARY KEY (user_id, idem_key),
  KEY ix_idem_created (created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE idempotency_keys;
