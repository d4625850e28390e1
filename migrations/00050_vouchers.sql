-- +goose Up
-- A voucher (promo code) of one cinema: one use is one seat it discounted. Exactly one of
-- percent_off, amount_off_minor and price_minor is set (minor units of the cinema's
-- currency). uses counts the seats of live orders (pending or paid) it discounted; it is
-- only ever changed by a guarded UPDATE (uses + n <= max_uses) in the transaction that
-- writes or ends those orders, and voucher_uses holds one row per such seat, so the two
-- can be checked against each other. show_ids and ticket types limit what it covers
-- (none named: every seat).
CREATE TABLE vouchers (
  id               BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  code             VARCHAR(32) NOT NULL,
  cinema_id        BIGINT UNSIGNED NOT NULL,
  max_uses         INT UNSIGNED NOT NULL,
  uses             INT UNSIGNED NOT NULL DEFAULT 0,
  percent_off      TINYINT UNSIGNED NULL,
  amount_off_minor BIGINT NULL,
  price_minor      BIGINT NULL,
  valid_from       DATETIME(6) NULL,
  valid_until      DATETIME(6) NULL,
  active           BOOLEAN NOT NULL DEFAULT TRUE,
  batch            VARCHAR(100) NOT NULL DEFAULT '',
  created_at       DATETIME(6) NOT NULL,
  updated_at       DATETIME(6) NOT NULL,
  UNIQUE KEY uq_vouchers_code (code),
  KEY idx_vouchers_cinema_batch (cinema_id, batch),
  CONSTRAINT fk_vouchers_cinema FOREIGN KEY (cinema_id) REFERENCES cinemas (id),
  CONSTRAINT ck_vouchers_uses CHECK (uses <= max_uses),
  CONSTRAINT ck_vouchers_one_rule CHECK ((percent_off IS NOT NULL) + (amount_off_minor IS NOT NULL) + (price_minor IS NOT NULL) = 1)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE voucher_shows (
  voucher_id BIGINT UNSIGNED NOT NULL,
  show_id    BIGINT UNSIGNED NOT NULL,
  PRIMARY KEY (voucher_id, show_id),
  CONSTRAINT fk_voucher_shows_voucher FOREIGN KEY (voucher_id) REFERENCES vouchers (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

CREATE TABLE voucher_ticket_types (
  voucher_id BIGINT UNSIGNED NOT NULL,
  type_code  VARCHAR(32) NOT NULL,
  PRIMARY KEY (voucher_id, type_code),
  CONSTRAINT fk_voucher_ticket_types_voucher FOREIGN KEY (voucher_id) REFERENCES vouchers (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- One row per seat of a live order that a voucher discounted: the primary key lets a
-- seat of an order count once; the row goes when the order ends (cancelled, expired,
-- refunded), in the same transaction that gives the use back to vouchers.uses.
CREATE TABLE voucher_uses (
  order_id       BIGINT UNSIGNED NOT NULL,
  seat_id        BIGINT UNSIGNED NOT NULL,
  voucher_id     BIGINT UNSIGNED NOT NULL,
  show_id        BIGINT UNSIGNED NOT NULL,
  discount_minor BIGINT NOT NULL,
  PRIMARY KEY (order_id, seat_id),
  KEY idx_voucher_uses_voucher_show (voucher_id, show_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE voucher_uses;
DROP TABLE voucher_ticket_types;
DROP TABLE voucher_shows;
DROP TABLE vouchers;
