-- +goose Up
-- Audit entries name the cinema of the hall, show, order or cinema they are about (NULL:
-- a movie, an account, or anything of no one cinema), so limited staff see their own
-- cinemas' entries and the log filters by cinema. Existing entries are filled in from
-- their entity.
ALTER TABLE audit_log
  ADD COLUMN cinema_id BIGINT UNSIGNED NULL AFTER entity_id,
  ADD KEY ix_audit_cinema (cinema_id, id);

UPDATE audit_log l JOIN halls h ON l.entity = 'hall' AND h.id = l.entity_id
  SET l.cinema_id = h.cinema_id;
UPDATE audit_log l JOIN shows sh ON l.entity = 'show' AND sh.id = l.entity_id
  JOIN halls h ON h.id = sh.hall_id SET l.cinema_id = h.cinema_id;
UPDATE audit_log l JOIN shows sh ON l.entity = 'show_seat' AND sh.id = SUBSTRING_INDEX(l.entity_id, ':', 1)
  JOIN halls h ON h.id = sh.hall_id SET l.cinema_id = h.cinema_id;
UPDATE audit_log l JOIN orders o ON l.entity = 'order' AND o.order_no = l.entity_id
  JOIN shows sh ON sh.id = o.show_id JOIN halls h ON h.id = sh.hall_id SET l.cinema_id = h.cinema_id;
UPDATE audit_log l JOIN cinemas c ON l.entity = 'cinema' AND c.id = l.entity_id
  SET l.cinema_id = c.id;

-- +goose Down
ALTER TABLE audit_log DROP KEY ix_audit_cinema, DROP COLUMN cinema_id;
