package invariants

import (
	"context"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/internal/testenv"
	"seatflow/services/seats"
)

// TestInvariant7_TimesStoredInUTCDatesReadInCinemaZone proves invariant 7: what MySQL
// stores is UTC whatever the session or cinema zone, and a date given by a person is a
// day in the cinema's zone. If the DSN lost loc=UTC / time_zone='+00:00', the raw
// DATETIME would differ from the UTC wall clock; if OnDate used UTC days, a show at
// 00:30 Shanghai time (16:30 UTC the day before) would be listed on the wrong date.
//
// Invariant 7 is kept by OpenDB (services/store/db.go), which forces parseTime, loc=UTC
// and the session's time_zone '+00:00'; by LocalTime (services/localtime.go),
// seats.Listing.OnDate and the staff Dashboard, which turn local days into UTC ranges; and
// by Redis's TIME for Redis-side lifetimes, tokens and markers (invariant 3c).
// TestLocalTime_RefusesGapsAndOverlaps (services/localtime_test.go) proves it too.
func TestInvariant7_TimesStoredInUTCDatesReadInCinemaZone(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	o, err := e.Create(e.User(1), e.SeatIDs("E5")...)
	if err != nil {
		t.Fatal(err)
	}
	var raw string
	if err := e.DB.Get(&raw, "SELECT DATE_FORMAT(created_at, '%Y-%m-%d %H:%i:%s') FROM orders WHERE id = ?", o.ID); err != nil {
		t.Fatal(err)
	}
	if want := e.Clock.Now().UTC().Format("2006-01-02 15:04:05"); raw != want {
		t.Errorf("created_at stored as %s, want the UTC wall clock %s", raw, want)
	}
	if loc := o.CreatedAt.Location(); loc != time.UTC {
		t.Errorf("created_at read back in %v, want UTC", loc)
	}

	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	starts := time.Date(2026, 12, 5, 0, 30, 0, 0, shanghai) // 2026-12-04 16:30 UTC
	late := e.MakeShow(e.Hall.ID, services.ShowOnSale, e.Clock.Now(), starts)
	// the show's cinema's zone decides its date: the listing's own fallback zone is UTC
	e.Exec("UPDATE cinemas SET time_zone = 'Asia/Shanghai'")
	shows := seats.NewListing(e.DB, catalog.NewCatalog(e.DB).WithClock(e.Clock), e.Seats, e.Clock, time.UTC)
	listed := func(date string) bool {
		got, err := shows.OnDate(ctx, date, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range got {
			if s.ID == late.ID {
				return true
			}
		}
		return false
	}
	if !listed("2026-12-05") || listed("2026-12-04") {
		t.Errorf("a show at 00:30 local on 5 Dec: listed on 5 Dec %v, on 4 Dec %v; want only 5 Dec", listed("2026-12-05"), listed("2026-12-04"))
	}
	if _, err := shows.OnDate(ctx, "05/12/2026", 0); services.ErrorCode(err) != services.CodeInvalidRequest {
		t.Errorf("a malformed date: %v, want INVALID_REQUEST", err)
	}
}
