package catalog

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
)

// takenSeat is a seat held, sold or kept as a house seat for a show that has not started.
type takenSeat struct {
	SeatID   int64     `db:"seat_id"`
	Label    string    `db:"label"`
	Row      int       `db:"row_no"`
	Col      int       `db:"col_no"`
	ShowID   int64     `db:"show_id"`
	Title    string    `db:"title"`
	StartsAt time.Time `db:"starts_at"`
	State    string    `db:"state"` // held, sold or house seat
}

// refuseTaken answers CONFLICT naming the seats of lost that a live order or a house-seat
// row ties to a show starting after now (not cancelled), grouped by show (title and start
// time in zone), or nil. The caller holds every seat of the hall locked for update, so
// no order can commit on these seats meanwhile (catalog.LockSeats; invariant 12).
func refuseTaken(ctx context.Context, tx *sqlx.Tx, lost []int64, now time.Time, zone *time.Location) error {
	if len(lost) == 0 {
		return nil
	}
	var taken []takenSeat
	err := inChunks(lost, maxInList/2, func(part []int64) error {
		q, args, err := sqlx.In(`SELECT os.seat_id, s.label, s.row_no, s.col_no, sh.id AS show_id, m.title, sh.starts_at,
				IF(o.status = ?, 'sold', 'held') AS state
			FROM order_seats os JOIN orders o ON o.id = os.order_id JOIN seats s ON s.id = os.seat_id
			JOIN shows sh ON sh.id = os.show_id JOIN movies m ON m.id = sh.movie_id
			WHERE os.live = 1 AND os.seat_id IN (?) AND sh.starts_at > ?
			UNION ALL
			SELECT hs.seat_id, s.label, s.row_no, s.col_no, sh.id, m.title, sh.starts_at, 'house seat'
			FROM show_house_seats hs JOIN seats s ON s.id = hs.seat_id
			JOIN shows sh ON sh.id = hs.show_id JOIN movies m ON m.id = sh.movie_id
			WHERE hs.seat_id IN (?) AND sh.starts_at > ? AND sh.status <> ?`,
			services.OrderPaid, part, now, part, now, services.ShowCancelled)
		if err != nil {
			return err
		}
		var some []takenSeat
		if err := tx.SelectContext(ctx, &some, tx.Rebind(q), args...); err != nil {
			return err
		}
		taken = append(taken, some...)
		return nil
	})
	if err != nil {
		return err
	}
	if len(taken) == 0 {
		return nil
	}
	sort.Slice(taken, func(i, j int) bool {
		a, b := taken[i], taken[j]
		switch {
		case !a.StartsAt.Equal(b.StartsAt):
			return a.StartsAt.Before(b.StartsAt)
		case a.ShowID != b.ShowID:
			return a.ShowID < b.ShowID
		case a.Row != b.Row:
			return a.Row < b.Row
		}
		return a.Col < b.Col
	})
	var parts, labels []string
	seen := map[string]bool{}
	for i := 0; i < len(taken); {
		t := taken[i]
		var seats []string
		for ; i < len(taken) && taken[i].ShowID == t.ShowID; i++ {
			seats = append(seats, taken[i].Label+" "+taken[i].State)
			if !seen[taken[i].Label] {
				seen[taken[i].Label] = true
				labels = append(labels, taken[i].Label)
			}
		}
		parts = append(parts, fmt.Sprintf("%q on %s (%s)", t.Title, t.StartsAt.In(zone).Format("Mon 2 Jan 15:04"), strings.Join(seats, ", ")))
	}
	return &services.Error{Code: services.CodeConflict, Seats: labels, Message: "the new layout removes, moves, blocks or re-zones seats held, sold or kept as house seats for shows that have not started: " +
		nameFew(parts) + "; keep those seats as they are until those shows have started"}
}

// nameFew joins the first maxNamedShows of parts with "; " and says how many more there are.
func nameFew(parts []string) string {
	if len(parts) > maxNamedShows {
		parts = append(parts[:maxNamedShows:maxNamedShows], fmt.Sprintf("and %d more", len(parts)-maxNamedShows))
	}
	return strings.Join(parts, "; ")
}
