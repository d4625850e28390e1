-- +goose Up
-- The price of a ticket type other than adult in a zone of a show (minor units, the
-- show's currency). A type and zone without a row is not sold; adult is show_prices.
CREATE TABLE show_ticket_prices (
  show_id     BIGINT UNSIGNED NOT NULL,
  type_code   VARCHAR(32) NOT NULL,
  zone_id     BIGINT UNSIGNED NOT NULL,
  price_minor BIGINT NOT NULL,
  PRIMARY KEY (show_id, type_code, zone_id),
  KEY ix_show_ticket_prices_type (type_code),
  CONSTRAINT fk_show_ticket_prices_show FOREIGN KEY (show_id) REFERENCES shows (id),
  CONSTRAINT fk_show_ticket_prices_type FOREIGN KEY (type_code) REFERENCES ticket_types (code),
  CONSTRAINT fk_show_ticket_prices_zone FOREIGN KEY (zone_id) REFERENCES zones (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE show_ticket_prices;
