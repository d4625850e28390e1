package store

import (
	"context"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// RoomPlace is one buyer's place in a show's waiting room as its durable record keeps it
// (waitingroom rebuilds a flushed room from these). Seq is the queue number (0 until the
// opening's draw for a buyer who joined before it; Draw orders those); AdmittedAt is
// set once the room admitted the place. Times UTC.
type RoomPlace struct {
	ShowID        int64      `db:"show_id"`
	UserID        int64      `db:"user_id"`
	Seq           int64      `db:"seq"`
	Draw          int64      `db:"draw"`
	QueueID       string     `db:"queue_id"`
	FirstPosition int        `db:"first_position"`
	JoinedAt      time.Time  `db:"joined_at"`
	AdmittedAt    *time.Time `db:"admitted_at"`
}

// RoomProgress is how far a show's room moved: Head is the highest queue number
// admitted or expired at the front, Base the queue number the opening's draw started
// after (Shuffled once it ran), Admitted and Abandoned the totals.
type RoomProgress struct {
	ShowID    int64     `db:"show_id"`
	Head      int64     `db:"head"`
	Base      int64     `db:"base"`
	Shuffled  bool      `db:"shuffled"`
	Admitted  int64     `db:"admitted"`
	Abandoned int64     `db:"abandoned"`
	UpdatedAt time.Time `db:"updated_at"`
}

// UpsertRoomPlaces records places (one statement), replacing a buyer's earlier place in the same show (a join after an expired place); the same place keeps its joined_at, admitted_at and draw.
func UpsertRoomPlaces(ctx context.Context, q Querier, places []RoomPlace) error {
	if len(places) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString(`INSERT INTO waiting_room_places (show_id, user_id, seq, draw, queue_id, first_position, joined_at, admitted_at) VALUES `)
	args := make([]any, 0, len(places)*7)
	for i, p := range places {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("(?, ?, ?, ?, ?, ?, ?, NULL)")
		args = append(args, p.ShowID, p.UserID, p.Seq, p.Draw, p.QueueID, p.FirstPosition, p.JoinedAt.UTC())
	}
	// the same place (queue id) keeps when it joined and any admission; MySQL assigns left
	// to right, so those two compare queue_id before it is replaced
	b.WriteString(` ON DUPLICATE KEY UPDATE joined_at = IF(queue_id = VALUES(queue_id), joined_at, VALUES(joined_at)),
		admitted_at = IF(queue_id = VALUES(queue_id), admitted_at, NULL),
		draw = IF(queue_id = VALUES(queue_id) AND VALUES(draw) = 0, draw, VALUES(draw)),
		seq = VALUES(seq), queue_id = VALUES(queue_id), first_position = VALUES(first_position)`)
	_, err := q.ExecContext(ctx, b.String(), args...)
	return err
}

// AdmitRoomPlaces marks the places of userIDs in showID admitted at (UTC).
func AdmitRoomPlaces(ctx context.Context, q Querier, showID int64, userIDs []int64, at time.Time) error {
	if len(userIDs) == 0 {
		return nil
	}
	query, args, err := sqlx.In(`UPDATE waiting_room_places SET admitted_at = ? WHERE show_id = ? AND user_id IN (?)`, at.UTC(), showID, userIDs)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, sqlx.Rebind(sqlx.QUESTION, query), args...)
	return err
}

// SaveRoomProgress records how far showID's room moved; head, base and the totals never go back.
func SaveRoomProgress(ctx context.Context, q Querier, p RoomProgress) error {
	_, err := q.ExecContext(ctx, `INSERT INTO waiting_room_progress (show_id, head, base, shuffled, admitted, abandoned, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE head = GREATEST(head, VALUES(head)), base = GREATEST(base, VALUES(base)),
		shuffled = GREATEST(shuffled, VALUES(shuffled)), admitted = GREATEST(admitted, VALUES(admitted)),
		abandoned = GREATEST(abandoned, VALUES(abandoned)), updated_at = VALUES(updated_at)`,
		p.ShowID, p.Head, p.Base, p.Shuffled, p.Admitted, p.Abandoned, p.UpdatedAt.UTC())
	return err
}

// RoomProgressOf returns how far showID's room moved (zero values when it never moved).
func RoomProgressOf(ctx context.Context, q Querier, showID int64) (RoomProgress, error) {
	var rows []RoomProgress
	err := q.SelectContext(ctx, &rows, `SELECT show_id, head, base, shuffled, admitted, abandoned, updated_at
		FROM waiting_room_progress WHERE show_id = ?`, showID)
	if err != nil || len(rows) == 0 {
		return RoomProgress{ShowID: showID}, err
	}
	return rows[0], nil
}

// RoomPlacesOf lists showID's places by user id, at most limit after user id afterUser.
func RoomPlacesOf(ctx context.Context, q Querier, showID, afterUser int64, limit int) ([]RoomPlace, error) {
	var rows []RoomPlace
	err := q.SelectContext(ctx, &rows, `SELECT show_id, user_id, seq, draw, queue_id, first_position, joined_at, admitted_at
		FROM waiting_room_places WHERE show_id = ? AND user_id > ? ORDER BY user_id LIMIT ?`, showID, afterUser, limit)
	return rows, err
}

// RoomPlaceOf returns userID's place in showID's room (nil when there is none).
func RoomPlaceOf(ctx context.Context, q Querier, showID, userID int64) (*RoomPlace, error) {
	var rows []RoomPlace
	err := q.SelectContext(ctx, &rows, `SELECT show_id, user_id, seq, draw, queue_id, first_position, joined_at, admitted_at
		FROM waiting_room_places WHERE show_id = ? AND user_id = ?`, showID, userID)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	return &rows[0], nil
}

// RoomDrawRank counts showID's places drawn at the opening (draw > 0) whose draw comes before draw.
func RoomDrawRank(ctx context.Context, q Querier, showID, draw int64) (int64, error) {
	var n int64
	err := q.GetContext(ctx, &n, `SELECT COUNT(*) FROM waiting_room_places WHERE show_id = ? AND draw > 0 AND draw < ?`, showID, draw)
	return n, err
}

// RoomAdmittedSince lists showID's places admitted at or after since (UTC), by user id:
// the admissions a room that went back in time (a lossy failover) may have lost.
func RoomAdmittedSince(ctx context.Context, q Querier, showID int64, since time.Time) ([]RoomPlace, error) {
	var rows []RoomPlace
	err := q.SelectContext(ctx, &rows, `SELECT show_id, user_id, seq, draw, queue_id, first_position, joined_at, admitted_at
		FROM waiting_room_places WHERE show_id = ? AND admitted_at >= ? ORDER BY user_id`, showID, since.UTC())
	return rows, err
}
