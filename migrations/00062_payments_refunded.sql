-- +goose Up
-- How much of a payment's money went back (minor units of its currency): a partial
-- refund raises it, a whole refund makes it amount_minor (status refunded). What the
-- provider keeps of a payment is amount_minor - refunded_minor (DESIGN.md "money adds up").
ALTER TABLE payments ADD COLUMN refunded_minor BIGINT NOT NULL DEFAULT 0 AFTER amount_minor;

-- +goose Down
ALTER TABLE payments DROP COLUMN refunded_minor;
