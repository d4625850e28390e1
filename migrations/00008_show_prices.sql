-- +goose Up
CREATE TABLE show_prices (
  show_id     BIGINT UNSIGNED NOT NULL,
  zone_id     BIGINT UNSIGNED NOT NULL,
  price_minor BIGINT NOT NULL,
  PRIMARY KEY (show_id, zone_id),
  CONSTRAINT fk_show_prices_show FOREIGN KEY (show_id) REFERENCES shows (id),
  CONSTRAINT fk_show_prices_zone FOREIGN KEY (zone_id) REFERENCES zones (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE show_prices;
