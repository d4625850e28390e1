-- +goose Up
-- the ticket type each seat was sold as; every order before this reads as adult
ALTER TABLE order_seats ADD COLUMN ticket_type VARCHAR(32) NOT NULL DEFAULT 'adult' AFTER zone_code;

-- +goose Down
ALTER TABLE order_seats DROP COLUMN ticket_type;
