-- +goose Up
-- the voucher an order used (NULL: none) and its saving, minor units: total_minor is what
-- the buyer pays, the list prices less discount_minor
ALTER TABLE orders ADD COLUMN voucher_id BIGINT UNSIGNED NULL AFTER currency,
  ADD COLUMN discount_minor BIGINT NOT NULL DEFAULT 0 AFTER voucher_id;

-- +goose Down
ALTER TABLE orders DROP COLUMN discount_minor, DROP COLUMN voucher_id;
