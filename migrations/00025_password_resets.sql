-- +goose Up
-- Password reset links (services/accounts/resets.go, DESIGN.md "Password reset"): one
-- row per link e-mailed. Only the SHA-256 of the link's token is kept, so a copy of
-- this table opens no account. A row is usable while used_at is NULL and expires_at is
-- ahead; using it sets used_at in one conditional UPDATE, which makes it single-use.
CREATE TABLE password_resets (
  id         BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  token_hash BINARY(32) NOT NULL,
  user_id    BIGINT UNSIGNED NOT NULL,
  created_at DATETIME(6) NOT NULL,
  expires_at DATETIME(6) NOT NULL,
  used_at    DATETIME(6) NULL,
  UNIQUE KEY uq_password_resets_token (token_hash),
  KEY ix_password_resets_user (user_id, used_at),
  CONSTRAINT fk_password_resets_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE password_resets;
