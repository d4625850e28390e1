-- +goose Up
-- when a seat left its order through an exchange for another seat (NULL: it did not):
-- such a row is not live and is no seat of the order any more; a refunded seat
-- (refund_seats) or a seat of an ended order keeps NULL here
ALTER TABLE order_seats ADD COLUMN exchanged_at DATETIME(6) NULL AFTER live;

-- +goose Down
ALTER TABLE order_seats DROP COLUMN exchanged_at;
