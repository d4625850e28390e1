-- +goose Up
-- A seat taken out of its hall's layout while orders of past shows still name it leaves
-- the hall (hall_id NULL, so no hall reads it and its place and label are free again) and
-- keeps its label for those orders; retired_hall_id says which hall it was in.
ALTER TABLE seats
  MODIFY hall_id BIGINT UNSIGNED NULL,
  ADD COLUMN retired_hall_id BIGINT UNSIGNED NULL;

-- +goose Down
ALTER TABLE seats
  DROP COLUMN retired_hall_id,
  MODIFY hall_id BIGINT UNSIGNED NOT NULL;
