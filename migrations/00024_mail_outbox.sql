-- +goose Up
-- The language a user reads (en or zh): the e-mails sent to them are written in it.
ALTER TABLE users
  ADD COLUMN lang VARCHAR(8) CHARACTER SET ascii NOT NULL DEFAULT 'en' AFTER role;

-- The mail outbox: one row per e-mail seatflow owes someone, written in the same
-- transaction as the event it tells of (services/mail, DESIGN.md "E-mail"). The address
-- and language are copied from users when the row is written. dedupe_key makes an event
-- written twice one e-mail. A row is 'queued' until it is sent ('sent'), or 'held' when
-- no SMTP server is configured (the development mailbox shows it), or 'failed' once its
-- retries ran out.
CREATE TABLE mail_outbox (
  id              BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  kind            VARCHAR(32) CHARACTER SET ascii NOT NULL,
  dedupe_key      VARCHAR(160) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  user_id         BIGINT UNSIGNED NULL,
  to_addr         VARCHAR(254) NOT NULL,
  lang            VARCHAR(8) CHARACTER SET ascii NOT NULL,
  order_no        VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NULL,
  show_id         BIGINT UNSIGNED NULL,
  data            TEXT NULL,
  status          ENUM('queued','sending','sent','held','failed') NOT NULL DEFAULT 'queued',
  attempts        INT NOT NULL DEFAULT 0,
  last_error      VARCHAR(500) NULL,
  next_attempt_at DATETIME(6) NOT NULL,
  created_at      DATETIME(6) NOT NULL,
  sent_at         DATETIME(6) NULL,
  UNIQUE KEY uq_mail_outbox_dedupe (dedupe_key),
  KEY ix_mail_outbox_due (status, next_attempt_at),
  KEY ix_mail_outbox_user (user_id, created_at),
  KEY ix_mail_outbox_order (order_no)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE mail_outbox;
ALTER TABLE users DROP COLUMN lang;
