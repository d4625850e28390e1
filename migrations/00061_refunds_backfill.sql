-- +goose Up
-- Orders refunded before refunds were recorded get their refund: one row per order, at
-- the time it was refunded (cancelled_at), for the money its seats were sold for (each
-- seat's price_minor, already less its voucher saving), every seat of the order given
-- back. The staff member is not known (actor NULL); the reason is the order's.
INSERT INTO refunds (refund_id, order_id, amount_minor, currency, reason, actor_id, created_at)
SELECT CONCAT('migrated-', o.order_no), o.id,
       COALESCE((SELECT SUM(os.price_minor) FROM order_seats os WHERE os.order_id = o.id), 0),
       o.currency, LEFT(COALESCE(o.cancel_reason, ''), 200), NULL, COALESCE(o.cancelled_at, o.paid_at, o.created_at)
FROM orders o
WHERE o.status = 'refunded' AND NOT EXISTS (SELECT 1 FROM refunds r WHERE r.order_id = o.id);

INSERT INTO refund_seats (refund_id, order_id, seat_id, amount_minor)
SELECT r.id, os.order_id, os.seat_id, os.price_minor
FROM refunds r JOIN order_seats os ON os.order_id = r.order_id
WHERE r.refund_id LIKE 'migrated-%'
  AND NOT EXISTS (SELECT 1 FROM refund_seats rs WHERE rs.order_id = os.order_id AND rs.seat_id = os.seat_id);

-- +goose Down
DELETE rs FROM refund_seats rs JOIN refunds r ON r.id = rs.refund_id WHERE r.refund_id LIKE 'migrated-%';
DELETE FROM refunds WHERE refund_id LIKE 'migrated-%';
