-- +goose Up
-- A payment refunded before partial refunds existed gave back all of its money.
UPDATE payments SET refunded_minor = amount_minor WHERE status = 'refunded';

-- +goose Down
UPDATE payments SET refunded_minor = 0;
