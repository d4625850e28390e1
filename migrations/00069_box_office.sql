-- +goose Up
-- A counter sale may have no buyer account (a walk-in): orders.user_id is NULL then, and
-- the order's tickets go to the address staff typed (box_office_sales.email), if any.
ALTER TABLE orders MODIFY user_id BIGINT UNSIGNED NULL;

-- One row per counter sale (orders.channel 'box_office'): how it was paid (tender), the
-- cash the buyer gave and the change given back (minor units of the order's currency; 0
-- for card), the shift of its seller it counts in (NULL: the seller had none open), the
-- address and language of its tickets' e-mail.
CREATE TABLE box_office_sales (
  order_id       BIGINT UNSIGNED NOT NULL PRIMARY KEY,
  tender         ENUM('cash','card') NOT NULL,
  tendered_minor BIGINT NOT NULL,
  change_minor   BIGINT NOT NULL,
  shift_id       BIGINT UNSIGNED NULL,
  email          VARCHAR(254) NULL,
  lang           VARCHAR(8) NOT NULL DEFAULT 'en',
  KEY ix_box_office_sales_shift (shift_id),
  CONSTRAINT fk_box_office_sales_order FOREIGN KEY (order_id) REFERENCES orders (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE box_office_sales;
ALTER TABLE orders MODIFY user_id BIGINT UNSIGNED NOT NULL;
