-- +goose Up
-- what the order's voucher took off a seat it covers (minor units; NULL: not covered);
-- price_minor is the seat's discounted price
ALTER TABLE order_seats ADD COLUMN discount_minor BIGINT NULL AFTER price_minor;

-- +goose Down
ALTER TABLE order_seats DROP COLUMN discount_minor;
