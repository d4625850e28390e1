-- +goose Up
CREATE TABLE orders (
  id            BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  order_no      VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  user_id       BIGINT UNSIGNED NOT NULL,
  show_id       BIGINT UNSIGNED NOT NULL,
  status        ENUM('pending','paid','cancelled','expired','refunded') NOT NULL DEFAULT 'pending',
  total_minor   BIGINT NOT NULL,
  currency      CHAR(3) NOT NULL,
  created_at    DATETIME(6) NOT NULL,
  expires_at    DATETIME(6) NOT NULL,
  paid_at       DATETIME(6) NULL,
  cancelled_at  DATETIME(6) NULL,
  cancel_reason VARCHAR(200) NULL,
  UNIQUE KEY uq_orders_no (order_no),
  KEY ix_orders_user (user_id, created_at),
  KEY ix_orders_show_status (show_id, status),
  KEY ix_orders_status_expires (status, expires_at),
  CONSTRAINT fk_orders_user FOREIGN KEY (user_id) REFERENCES users (id),
  CONSTRAINT fk_orders_show FOREIGN KEY (show_id) REFERENCES shows (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE orders;
