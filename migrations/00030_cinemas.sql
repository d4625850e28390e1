-- +goose Up
-- A cinema is one site of the install: its halls, its local time zone (IANA) and its
-- currency (ISO 4217). Migration 31 (a Go migration, services/store/migrate_first_cinema.go) makes the first cinema from
-- the install's settings and puts every existing hall in it; 32 then requires a cinema.
CREATE TABLE cinemas (
  id         BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  name       VARCHAR(100) NOT NULL,
  time_zone  VARCHAR(64) NOT NULL,
  currency   CHAR(3) NOT NULL,
  created_at DATETIME(6) NOT NULL,
  UNIQUE KEY uq_cinemas_name (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

ALTER TABLE halls ADD COLUMN cinema_id BIGINT UNSIGNED NULL AFTER id;

-- staff limited to cinemas: a staff member with no row here works for every cinema
CREATE TABLE staff_cinemas (
  user_id   BIGINT UNSIGNED NOT NULL,
  cinema_id BIGINT UNSIGNED NOT NULL,
  PRIMARY KEY (user_id, cinema_id),
  KEY ix_staff_cinemas_cinema (cinema_id),
  CONSTRAINT fk_staff_cinemas_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE,
  CONSTRAINT fk_staff_cinemas_cinema FOREIGN KEY (cinema_id) REFERENCES cinemas (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE staff_cinemas;
ALTER TABLE halls DROP COLUMN cinema_id;
DROP TABLE cinemas;
