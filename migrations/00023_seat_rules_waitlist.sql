-- +goose Up
-- The single-seat rule of a show (off, warn or enforce; API.md "Seat rules and the
-- waiting list") and the waiting list of sold-out shows.
ALTER TABLE shows
  ADD COLUMN single_seat_rule ENUM('off','warn','enforce') NOT NULL DEFAULT 'off' AFTER admit_per_minute;

-- One row per place on a show's waiting list. active is 1 while the place is waiting
-- or offered and NULL once it ended, so a user holds one open place per show
-- (uq_waitlist_open). An offer is a pending order made for the place: its number is
-- written (offered_at) before the order is created, so a place whose order never
-- committed goes back to waiting, with its rank.
CREATE TABLE waitlist_entries (
  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  show_id     BIGINT UNSIGNED NOT NULL,
  user_id     BIGINT UNSIGNED NOT NULL,
  quantity    INT NOT NULL,
  zone_code   VARCHAR(32) NULL,
  status      ENUM('waiting','offered','left','closed') NOT NULL DEFAULT 'waiting',
  active      TINYINT(1) NULL DEFAULT 1,
  order_no    VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NULL,
  offered_at  DATETIME(6) NULL,
  created_at  DATETIME(6) NOT NULL,
  updated_at  DATETIME(6) NOT NULL,
  UNIQUE KEY uq_waitlist_open (show_id, user_id, active),
  KEY ix_waitlist_show_status (show_id, status, id),
  KEY ix_waitlist_user (user_id, created_at),
  CONSTRAINT fk_waitlist_show FOREIGN KEY (show_id) REFERENCES shows (id),
  CONSTRAINT fk_waitlist_user FOREIGN KEY (user_id) REFERENCES users (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE waitlist_entries;
ALTER TABLE shows DROP COLUMN single_seat_rule;
