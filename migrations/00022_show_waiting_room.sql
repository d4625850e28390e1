-- +goose Up
-- A show's waiting room for flash on-sales: while it is on, only admitted buyers may
-- create orders; admit_per_minute is the pace of admission (the live pace is kept in
-- Redis beside the queue and follows every change written here).
ALTER TABLE shows
  ADD COLUMN waiting_room TINYINT(1) NOT NULL DEFAULT 0 AFTER purchase_limit,
  ADD COLUMN admit_per_minute INT NOT NULL DEFAULT 600 AFTER waiting_room;

-- +goose Down
ALTER TABLE shows DROP COLUMN admit_per_minute, DROP COLUMN waiting_room;
