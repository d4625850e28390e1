-- +goose Up
-- last_seen_at drives the idle timeout; expires_at stays the absolute lifetime.
ALTER TABLE sessions ADD COLUMN last_seen_at DATETIME(6) NULL AFTER created_at;
UPDATE sessions SET last_seen_at = created_at;
ALTER TABLE sessions MODIFY last_seen_at DATETIME(6) NOT NULL;

-- +goose Down
ALTER TABLE sessions DROP COLUMN last_seen_at;
