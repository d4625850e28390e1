-- +goose Up
-- A price card is a named set of ticket type x zone prices of one cinema that staff apply
-- to shows: applying copies its prices into the show (show_prices for adult,
-- show_ticket_prices for the others), so editing a card later changes only the shows it
-- is applied to next, never an order.
CREATE TABLE price_cards (
  id         BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  cinema_id  BIGINT UNSIGNED NOT NULL,
  name       VARCHAR(100) NOT NULL,
  created_at DATETIME(6) NOT NULL,
  updated_at DATETIME(6) NOT NULL,
  UNIQUE KEY uq_price_cards_cinema_name (cinema_id, name),
  CONSTRAINT fk_price_cards_cinema FOREIGN KEY (cinema_id) REFERENCES cinemas (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE price_card_prices (
  card_id     BIGINT UNSIGNED NOT NULL,
  type_code   VARCHAR(32) NOT NULL,
  zone_code   VARCHAR(32) NOT NULL,
  price_minor BIGINT NOT NULL,
  PRIMARY KEY (card_id, type_code, zone_code),
  CONSTRAINT fk_price_card_prices_card FOREIGN KEY (card_id) REFERENCES price_cards (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE price_card_prices;
DROP TABLE price_cards;
