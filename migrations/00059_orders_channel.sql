-- +goose Up
-- Where an order was sold: online (the buyer's own order) or box_office (staff at the
-- counter, sold_by naming the staff member). Reports group by channel; staff's order
-- views show both.
ALTER TABLE orders ADD COLUMN channel ENUM('online','box_office') NOT NULL DEFAULT 'online' AFTER status,
  ADD COLUMN sold_by BIGINT UNSIGNED NULL AFTER channel,
  ADD CONSTRAINT fk_orders_sold_by FOREIGN KEY (sold_by) REFERENCES users (id);

-- +goose Down
ALTER TABLE orders DROP FOREIGN KEY fk_orders_sold_by, DROP COLUMN sold_by, DROP COLUMN channel;
