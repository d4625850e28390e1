-- +goose Up
-- every hall belongs to a cinema; hall names are unique within their cinema (two sites of a
-- chain may each have a "Hall 1")
ALTER TABLE halls
  MODIFY cinema_id BIGINT UNSIGNED NOT NULL,
  ADD CONSTRAINT fk_halls_cinema FOREIGN KEY (cinema_id) REFERENCES cinemas (id),
  ADD UNIQUE KEY uq_halls_cinema_name (cinema_id, name),
  DROP INDEX uq_halls_name;

-- +goose Down
ALTER TABLE halls
  ADD UNIQUE KEY uq_halls_name (name),
  DROP INDEX uq_halls_cinema_name,
  DROP FOREIGN KEY fk_halls_cinema,
  MODIFY cinema_id BIGINT UNSIGNED NULL;
