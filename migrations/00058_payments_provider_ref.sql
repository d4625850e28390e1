-- +goose Up
-- The provider's own name of a payment's money (Stripe: the PaymentIntent id), recorded
-- from the webhook that approved it, so a refund can name it; '' for a provider that needs
-- none (the demo).
ALTER TABLE payments ADD COLUMN provider_ref VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT '' AFTER status;

-- +goose Down
ALTER TABLE payments DROP COLUMN provider_ref;
