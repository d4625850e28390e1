-- +goose Up
-- An order keeps the Idempotency-Key it was created with, and the SHA-256 of that
-- request, in its own row: the group commit writes them with the orders' INSERT instead
-- of a statement of its own (BENCHMARKS.md "The Idempotency-Key in the order's row").
-- The unique key keeps one order per buyer and key; a key used again after 24 h is first
-- cleared from its old order (services/store/idempotency_keys.go).
ALTER TABLE orders
  ADD COLUMN idem_key VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NULL,
  ADD COLUMN idem_hash BINARY(32) NULL,
  ADD UNIQUE KEY uq_orders_idem (user_id, idem_key);
UPDATE orders o JOIN idempotency_keys k ON k.order_id = o.id
  SET o.idem_key = k.idem_key, o.idem_hash = k.request_hash;
DROP TABLE idempotency_keys;

-- +goose Down
CREATE TABLE idempotency_keys (
  user_id      BIGINT UNSIGNED NOT NULL,
  idem_key     VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  request_hash BINARY(32) NOT NULL,
  order_id     BIGINT UNSIGNED NOT NULL,
  created_at   DATETIME(6) NOT NULL,
  PRIMARY KEY (user_id, idem_key),
  KEY ix_idem_created (created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;
INSERT INTO idempotency_keys (user_id, idem_key, request_hash, order_id, created_at)
  SELECT user_id, idem_key, idem_hash, id, created_at FROM orders WHERE idem_key IS NOT NULL;
ALTER TABLE orders DROP KEY uq_orders_idem, DROP COLUMN idem_hash, DROP COLUMN idem_key;
