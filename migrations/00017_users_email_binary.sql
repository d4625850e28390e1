-- users.email holds the canonical form of an address (services.CanonicalEmail); two
-- accounts are the same exactly when these bytes are equal, so the unique key compares
-- bytes, not an accent- and width-blind collation.
-- +goose Up
ALTER TABLE users MODIFY email VARCHAR(254) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL;

-- +goose Down
ALTER TABLE users MODIFY email VARCHAR(254) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NOT NULL;
