-- +goose Up
-- Ticket codes: the short code of a paid order's ticket that staff can type at the door
-- (10 characters of Crockford's base32, the last a check character; services/orders/tickets.go).
-- Random, not derived from the order's id; one per order, unique across the cinema.
CREATE TABLE ticket_codes (
  code       CHAR(10) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  order_id   BIGINT UNSIGNED NOT NULL,
  created_at DATETIME(6) NOT NULL,
  PRIMARY KEY (code),
  UNIQUE KEY uq_ticket_codes_order (order_id),
  CONSTRAINT fk_ticket_codes_order FOREIGN KEY (order_id) REFERENCES orders (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=ascii COLLATE=ascii_bin;

-- +goose Down
DROP TABLE ticket_codes;
