-- +goose Up
-- live is 1 while the order is pending or paid and NULL once it is cancelled, expired or
-- refunded: the unique key allows one live row per (show, seat) and any number of
-- released rows, so a released seat can be sold again and the history is kept.
CREATE TABLE order_seats (
  order_id    BIGINT UNSIGNED NOT NULL,
  show_id     BIGINT UNSIGNED NOT NULL,
  seat_id     BIGINT UNSIGNED NOT NULL,
  zone_code   VARCHAR(32) NOT NULL,
  price_minor BIGINT NOT NULL,
  live        TINYINT NULL DEFAULT 1,
  PRIMARY KEY (order_id, seat_id),
  UNIQUE KEY uq_order_seats_live (show_id, seat_id, live),
  CONSTRAINT fk_order_seats_order FOREIGN KEY (order_id) REFERENCES orders (id),
  CONSTRAINT fk_order_seats_seat FOREIGN KEY (seat_id) REFERENCES seats (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE order_seats;
