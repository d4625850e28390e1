-- +goose Up
-- A lighter outbox row: every created order writes one, in its batch's transaction, so
-- each index of mail_outbox is paid per order. Nothing reads the outbox by user or by
-- order number (delivery reads by id and by due time, the development mailbox newest
-- first or by address), so those two indexes go; the primary key, the dedupe key and the
-- due-time index stay.
ALTER TABLE mail_outbox DROP INDEX ix_mail_outbox_user, DROP INDEX ix_mail_outbox_order;

-- +goose Down
ALTER TABLE mail_outbox ADD KEY ix_mail_outbox_user (user_id, created_at), ADD KEY ix_mail_outbox_order (order_no);
