-- +goose Up
CREATE TABLE halls (
  id        BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  name      VARCHAR(100) NOT NULL,
  rows_n    INT UNSIGNED NOT NULL,
  cols_n    INT UNSIGNED NOT NULL,
  UNIQUE KEY uq_halls_name (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE halls;
