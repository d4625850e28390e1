-- +goose Up
-- House seats: seats of one show that staff keep back (for guests, press, technicians).
-- A house seat is never sold online; it is shown as blocked. A row exists only while the
-- seat is blocked for the show; unblocking deletes it (the audit log keeps the history).
CREATE TABLE show_house_seats (
  show_id    BIGINT UNSIGNED NOT NULL,
  seat_id    BIGINT UNSIGNED NOT NULL,
  created_by BIGINT UNSIGNED NULL,
  reason     VARCHAR(200) NOT NULL DEFAULT '',
  created_at DATETIME(6) NOT NULL,
  PRIMARY KEY (show_id, seat_id),
  CONSTRAINT fk_show_house_seats_show FOREIGN KEY (show_id) REFERENCES shows (id),
  CONSTRAINT fk_show_house_seats_seat FOREIGN KEY (seat_id) REFERENCES seats (id),
  CONSTRAINT fk_show_house_seats_user FOREIGN KEY (created_by) REFERENCES users (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE show_house_seats;
