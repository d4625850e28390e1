-- +goose Up
-- A staff member's shift at a cinema's counter: the float in the drawer when it opened
-- and, once closed, the cash counted then and what the sales and refunds of the shift
-- made the drawer expect (all minor units of the cinema's currency). open_key is 1 while
-- the shift is open and NULL once closed: one open shift per staff member.
CREATE TABLE shifts (
  id                  BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  staff_id            BIGINT UNSIGNED NOT NULL,
  cinema_id           BIGINT UNSIGNED NOT NULL,
  currency            CHAR(3) NOT NULL,
  float_minor         BIGINT NOT NULL,
  opened_at           DATETIME(6) NOT NULL,
  closed_at           DATETIME(6) NULL,
  closed_by           BIGINT UNSIGNED NULL,
  counted_minor       BIGINT NULL,
  expected_cash_minor BIGINT NULL,
  card_minor          BIGINT NULL,
  note                VARCHAR(200) NOT NULL DEFAULT '',
  open_key            TINYINT NULL DEFAULT 1,
  UNIQUE KEY uq_shifts_open (staff_id, open_key),
  KEY ix_shifts_cinema (cinema_id, opened_at),
  CONSTRAINT fk_shifts_staff FOREIGN KEY (staff_id) REFERENCES users (id),
  CONSTRAINT fk_shifts_closed_by FOREIGN KEY (closed_by) REFERENCES users (id),
  CONSTRAINT fk_shifts_cinema FOREIGN KEY (cinema_id) REFERENCES cinemas (id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE shifts;
