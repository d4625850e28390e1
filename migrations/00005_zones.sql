-- +goose Up
CREATE TABLE zones (
  id      BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  hall_id BIGINT UNSIGNED NOT NULL,
  code    VARCHAR(32) NOT NULL,
  name    VARCHAR(100) NOT NULL,
  UNIQUE KEY uq_zones_hall_code (hall_id, code),
  CONSTRAINT fk_zones_hall FOREIGN KEY (hall_id) REFERENCES halls (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE zones;
