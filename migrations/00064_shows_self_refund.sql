-- +goose Up
-- Until how many hours before its start a show's buyers may cancel a paid order
-- themselves and get their money back (NULL: they may not; API.md "Refunds").
ALTER TABLE shows ADD COLUMN self_refund_until_h INT NULL AFTER purchase_limit;

-- +goose Down
ALTER TABLE shows DROP COLUMN self_refund_until_h;
