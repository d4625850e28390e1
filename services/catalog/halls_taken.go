package catalog

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/store"
)

// refuseTaken answers CONFLICT naming the seats of lost that a live order or a house-seat
// row ties to a show starting after now (not cancelled), grouped by show (title and start
// time in zone), or nil. The caller holds every seat of the hall locked for update, so
// no order can commit on these seats meanwhile (catalog.LockSeats; invariant 12).
func refuseTaken(ctx context.Context, tx *sqlx.Tx, lost []int64, now time.Time, zone *time.Location) error {
	if len(lost) == 0 {
		return nil
	}
	var taken []store.TakenSeat
	err := inChunks(lost, maxInList/2, func(part []int64) error {
		some, err := store.TakenSeatsAhead(ctx, tx, part, now)
		if err != nil {
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
