-- +goose Up
-- What an e-mail says is fixed when its event happens (services/mail/facts.go): facts
-- holds, as JSON, the order and show as the event's transaction saw them, and the
-- e-mail is written from them at every delivery attempt and in the development
-- mailbox. message_key is the random part of the e-mail's Message-ID, drawn when it is
-- queued, so every attempt carries the same one and no two installations share one.
ALTER TABLE mail_outbox
  ADD COLUMN facts MEDIUMTEXT NULL AFTER data,
  ADD COLUMN message_key VARCHAR(40) CHARACTER SET ascii COLLATE ascii_bin NULL AFTER facts;

-- Rows written before this step get a unique Message-ID part too.
UPDATE mail_outbox SET message_key = CONCAT('m', REPLACE(UUID(), '-', '')) WHERE message_key IS NULL;

-- Reset links were kept in clear in data; they are now sealed (services/mail/secrets.go).
-- The links of older rows are dropped: such a row is shown redacted and is not sent
-- (the link lived 30 minutes; the account asks again).
UPDATE mail_outbox SET data = NULL WHERE kind = 'password_reset';

-- +goose Down
ALTER TABLE mail_outbox DROP COLUMN message_key, DROP COLUMN facts;
