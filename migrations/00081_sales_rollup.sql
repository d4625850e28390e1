-- +goose Up
-- The sales report's rollup of complete past local days (services/store/sales_rollup.go,
-- DESIGN.md "Sales rollup"): filled lazily by the first report that covers a day, read by
-- every later one. sales_days marks a (cinema, local day) as rolled up (an empty day too);
-- token is the transaction that rolled it up, so two reports rolling up one day at once
-- add its figures once (the primary key lets one marker in, the other INSERT IGNOREs it).
CREATE TABLE sales_days (
  cinema_id BIGINT UNSIGNED NOT NULL,
  local_day DATE NOT NULL,
  token BIGINT NOT NULL,
  rolled_at DATETIME(6) NOT NULL,
  PRIMARY KEY (cinema_id, local_day)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- A day's figures per ticket type, channel and currency: seats sold (paid that day, live
-- or refunded since), list prices, voucher savings, money refunded that day, and the
-- orders with a seat of that type. ticket_type '' is the day's distinct orders per
-- channel and currency (an order of two types counts once), its other columns zero.
CREATE TABLE sales_day_totals (
  cinema_id BIGINT UNSIGNED NOT NULL,
  local_day DATE NOT NULL,
  ticket_type VARCHAR(32) NOT NULL,
  channel VARCHAR(16) NOT NULL,
  currency CHAR(3) NOT NULL,
  orders BIGINT NOT NULL,
  seats BIGINT NOT NULL,
  gross BIGINT NOT NULL,
  discount BIGINT NOT NULL,
  refunded BIGINT NOT NULL,
  PRIMARY KEY (cinema_id, local_day, ticket_type, channel, currency)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- A day's figures per show and currency (orders distinct, an order is of one show).
CREATE TABLE sales_day_shows (
  cinema_id BIGINT UNSIGNED NOT NULL,
  local_day DATE NOT NULL,
  show_id BIGINT UNSIGNED NOT NULL,
  currency CHAR(3) NOT NULL,
  orders BIGINT NOT NULL,
  seats BIGINT NOT NULL,
  gross BIGINT NOT NULL,
  discount BIGINT NOT NULL,
  refunded BIGINT NOT NULL,
  PRIMARY KEY (cinema_id, local_day, show_id, currency)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE sales_day_shows;
DROP TABLE sales_day_totals;
DROP TABLE sales_days;
