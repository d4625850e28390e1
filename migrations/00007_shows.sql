-- +goose Up
CREATE TABLE shows (
  id             BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  movie_id       BIGINT UNSIGNED NOT NULL,
  hall_id        BIGINT UNSIGNED NOT NULL,
  starts_at      DATETIME(6) NOT NULL,
  sale_opens_at  DATETIME(6) NOT NULL,
  sale_closes_at DATETIME(6) NOT NULL,
  status         ENUM('draft','scheduled','on_sale','closed','cancelled') NOT NULL DEFAULT 'draft',
  purchase_limit INT UNSIGNED NOT NULL,
  currency       CHAR(3) NOT NULL,
  created_at     DATETIME(6) NOT NULL,
  UNIQUE KEY uq_shows_hall_start (hall_id, starts_at),
  KEY ix_shows_starts (starts_at),
  CONSTRAINT fk_shows_movie FOREIGN KEY (movie_id) REFERENCES movies (id),
  CONSTRAINT fk_shows_hall FOREIGN KEY (hall_id) REFERENCES halls (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE shows;
