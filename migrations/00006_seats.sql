-- +goose Up
CREATE TABLE seats (
  id      BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  hall_id BIGINT UNSIGNED NOT NULL,
  zone_id BIGINT UNSIGNED NOT NULL,
  row_no  INT UNSIGNED NOT NULL,
  col_no  INT UNSIGNED NOT NULL,
  label   VARCHAR(16) NOT NULL,
  kind    ENUM('standard','wheelchair','companion','blocked') NOT NULL DEFAULT 'standard',
  UNIQUE KEY uq_seats_hall_label (hall_id, label),
  UNIQUE KEY uq_seats_hall_pos (hall_id, row_no, col_no),
  CONSTRAINT fk_seats_hall FOREIGN KEY (hall_id) REFERENCES halls (id),
  CONSTRAINT fk_seats_zone FOREIGN KEY (zone_id) REFERENCES zones (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE seats;
