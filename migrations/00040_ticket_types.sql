-- +goose Up
-- A ticket type (adult, child, senior, student) is what a seat is sold as: its code, its
-- name in each language of the UI and an optional note for the door ("ID required").
-- adult is built in (no row): every show sells it at its zone prices (show_prices); the
-- types staff add here are priced per show and zone in show_ticket_prices.
CREATE TABLE ticket_types (
  code       VARCHAR(32) NOT NULL PRIMARY KEY,
  name_en    VARCHAR(100) NOT NULL,
  name_zh    VARCHAR(100) NOT NULL,
  note_en    VARCHAR(200) NOT NULL DEFAULT '',
  note_zh    VARCHAR(200) NOT NULL DEFAULT '',
  created_at DATETIME(6) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE ticket_types;
