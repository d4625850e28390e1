-- +goose Up
CREATE TABLE movies (
  id          BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  title       VARCHAR(200) NOT NULL,
  runtime_min INT UNSIGNED NOT NULL,
  rating      VARCHAR(10) NOT NULL DEFAULT '',
  synopsis    TEXT NOT NULL,
  UNIQUE KEY uq_movies_title (title)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE movies;
