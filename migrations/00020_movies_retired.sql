-- +goose Up
-- retired_at is set while a movie is retired: it is not offered for new shows; its
-- existing shows are unaffected. NULL means the movie is current.
ALTER TABLE movies ADD COLUMN retired_at DATETIME(6) NULL;

-- +goose Down
ALTER TABLE movies DROP COLUMN retired_at;
