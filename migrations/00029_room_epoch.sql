-- +goose Up
-- A waiting room's epoch: turning a show's room on adds one (services/catalog UpdateShow),
-- and admission tokens carry the epoch they were signed in, so a token of an earlier
-- epoch (signed while the room was off, or before it was last turned on) admits nobody.
-- A waiting-list place keeps the epoch it was joined in: while the room is on, only
-- places of its current epoch (joined with an admission) get offers (DESIGN.md §10).
ALTER TABLE shows
  ADD COLUMN room_epoch INT UNSIGNED NOT NULL DEFAULT 0 AFTER admit_per_minute;

ALTER TABLE waitlist_entries
  ADD COLUMN room_epoch INT UNSIGNED NOT NULL DEFAULT 0 AFTER zone_code;

-- +goose Down
ALTER TABLE waitlist_entries DROP COLUMN room_epoch;
ALTER TABLE shows DROP COLUMN room_epoch;
