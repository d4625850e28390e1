-- +goose Up
-- The waiting room's durable record (DESIGN.md §9): one row per buyer's place in a show's
-- room, written once per join in batches before the join answers, so a Redis flush or a
-- lossy failover rebuilds every place from here. seq is the place's queue number (0 until
-- the opening's draw for those who joined before it; draw orders them then); admitted_at
-- is set when the room admitted it. No foreign keys: a room outlives nothing it names,
-- and the record is only ever read by show.
CREATE TABLE waiting_room_places (
  show_id        BIGINT UNSIGNED NOT NULL,
  user_id        BIGINT UNSIGNED NOT NULL,
  seq            BIGINT UNSIGNED NOT NULL,
  draw           BIGINT UNSIGNED NOT NULL,
  queue_id       CHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  first_position INT UNSIGNED NOT NULL,
  joined_at      DATETIME(3) NOT NULL,
  admitted_at    DATETIME(3) NULL,
  PRIMARY KEY (show_id, user_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- One row per room: how far its queue has moved (head: the highest queue number admitted
-- or expired at the front), where the opening's draw began (base) and the totals.
CREATE TABLE waiting_room_progress (
  show_id    BIGINT UNSIGNED NOT NULL PRIMARY KEY,
  head       BIGINT UNSIGNED NOT NULL DEFAULT 0,
  base       BIGINT UNSIGNED NOT NULL DEFAULT 0,
  shuffled   TINYINT(1) NOT NULL DEFAULT 0,
  admitted   BIGINT UNSIGNED NOT NULL DEFAULT 0,
  abandoned  BIGINT UNSIGNED NOT NULL DEFAULT 0,
  updated_at DATETIME(3) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE waiting_room_progress;
DROP TABLE waiting_room_places;
