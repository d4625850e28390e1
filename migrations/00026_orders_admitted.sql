-- +goose Up
-- Door check-in: when a paid order's ticket was admitted at the door (UTC) and by which
-- staff member. NULL until admitted; set once, by one conditional update
-- (services/staff/admit.go, DESIGN.md "a ticket is admitted at most once").
ALTER TABLE orders
  ADD COLUMN admitted_at DATETIME(6) NULL AFTER paid_at,
  ADD COLUMN admitted_by BIGINT UNSIGNED NULL AFTER admitted_at,
  ADD CONSTRAINT fk_orders_admitted_by FOREIGN KEY (admitted_by) REFERENCES users (id);

-- +goose Down
ALTER TABLE orders
  DROP FOREIGN KEY fk_orders_admitted_by,
  DROP COLUMN admitted_by,
  DROP COLUMN admitted_at;
