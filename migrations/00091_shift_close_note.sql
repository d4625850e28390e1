-- +goose Up
-- A shift's closing note beside its opening note (note): closing no longer replaces it.
ALTER TABLE shifts ADD COLUMN close_note VARCHAR(200) NOT NULL DEFAULT '' AFTER note;

-- +goose Down
ALTER TABLE shifts DROP COLUMN close_note;
