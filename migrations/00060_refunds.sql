-- +goose Up
-- One row per refund of an order (whole or part): the money given back, in minor units
-- of the order's currency, when, by whom (NULL: the buyer's own cancellation or the
-- system), and the stable name the provider's idempotency is keyed on.
CREATE TABLE refunds (
  id           BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  refund_id    VARCHAR(80) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  order_id     BIGINT UNSIGNED NOT NULL,
  amount_minor BIGINT NOT NULL,
  currency     CHAR(3) NOT NULL,
  reason       VARCHAR(200) NOT NULL DEFAULT '',
  actor_id     BIGINT UNSIGNED NULL,
  created_at   DATETIME(6) NOT NULL,
  UNIQUE KEY uq_refunds_refund_id (refund_id),
  KEY ix_refunds_order (order_id),
  KEY ix_refunds_created (created_at),
  CONSTRAINT fk_refunds_order FOREIGN KEY (order_id) REFERENCES orders (id),
  CONSTRAINT fk_refunds_actor FOREIGN KEY (actor_id) REFERENCES users (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- The seats a refund gave back, each with the money it returned for that seat (its
-- price less its voucher saving): a seat is refunded at most once.
CREATE TABLE refund_seats (
  refund_id    BIGINT UNSIGNED NOT NULL,
  order_id     BIGINT UNSIGNED NOT NULL,
  seat_id      BIGINT UNSIGNED NOT NULL,
  amount_minor BIGINT NOT NULL,
  PRIMARY KEY (order_id, seat_id),
  KEY ix_refund_seats_refund (refund_id),
  CONSTRAINT fk_refund_seats_refund FOREIGN KEY (refund_id) REFERENCES refunds (id),
  CONSTRAINT fk_refund_seats_order_seat FOREIGN KEY (order_id, seat_id) REFERENCES order_seats (order_id, seat_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE refund_seats;
DROP TABLE refunds;
