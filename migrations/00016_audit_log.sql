-- +goose Up
-- Every staff or admin write (DESIGN.md invariant 11): who, when, what, before and after.
CREATE TABLE audit_log (
  id            BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
  actor_user_id BIGINT UNSIGNED NULL,
  action        VARCHAR(60) NOT NULL,
  entity        VARCHAR(40) NOT NULL,
  entity_id     VARCHAR(64) NOT NULL DEFAULT '',
  before_json   JSON NULL,
  after_json    JSON NULL,
  created_at    DATETIME(6) NOT NULL,
  KEY ix_audit_created (created_at),
  KEY ix_audit_entity (entity, entity_id),
  KEY ix_audit_actor (actor_user_id, created_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

-- +goose Down
DROP TABLE audit_log;
