-- +goose Up
CREATE TABLE payments (
  id           BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  payment_id   VARCHAR(40) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  order_id     BIGINT UNSIGNED NOT NULL,
  provider     VARCHAR(32) NOT NULL,
  amount_minor BIGINT NOT NULL,
  currency     CHAR(3) NOT NULL,
  status       ENUM('started','approved','declined','refunded') NOT NULL DEFAULT 'started',
  created_at   DATETIME(6) NOT NULL,
  updated_at   DATETIME(6) NOT NULL,
  UNIQUE KEY uq_payments_payment_id (payment_id),
  KEY ix_payments_order (order_id),
  CONSTRAINT fk_payments_order FOREIGN KEY (order_id) REFERENCES orders (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE payments;
