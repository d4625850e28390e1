package catalog_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/internal/testenv"
	"seatflow/services/seats"
)

// localShowOf is a LocalShow of movie m in the env's hall starting at 19:30 on date for
// days days, its sale open from now until an hour before the start, both zones priced.
func localShowOf(m *services.Movie, e *testenv.TestEnv, date string, days int) catalog.LocalShow {
	now := e.Clock.Now()
	return catalog.LocalShow{MovieID: m.ID, HallID: e.Hall.ID, Date: date, Start: "19:30",
		OpensDate: now.Format(time.DateOnly), OpensTime: "00:00", ClosesDate: date, ClosesTime: "18:30",
		Prices: []catalog.ZonePrice{{"standard", 3700}, {"premium", 5200}}, Days: days}
}

// TestCatalogWriter_CreateDaily proves "every day for N days" in the hall's cinema's
// zone (Europe/Berlin here): every day that can be created is, each audited; a day whose
// local time falls into the spring-forward gap and a day that overlaps another show of
// the hall are skipped and reported; what applies to every day is refused up front with
// nothing created.
func TestCatalogWriter_CreateDaily(t *testing.T) {
	e, _, staff, m := newCatalogWriterEnv(t)
	ctx := context.Background()
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	w := e.CatalogWriter(seats.NewListing(e.DB, e.Catalog, e.Seats, e.Clock, berlin))
	// the days are typed in the hall's cinema's zone
	testenv.SetFirstCinemaZone(t, e.DB, berlin.String())
	e.Catalog.ForgetCinemas()
	// a show on 2027-03-29 at 03:00 local: the repeat's 02:30 that day overlaps it
	blocker, err := w.CreateShow(ctx, staff, catalog.NewShow{MovieID: m.ID, HallID: e.Hall.ID,
		StartsAt: time.Date(2027, 3, 29, 1, 0, 0, 0, time.UTC), SaleOpensAt: e.Clock.Now(),
		SaleClosesAt: time.Date(2027, 3, 29, 0, 0, 0, 0, time.UTC), Prices: []catalog.ZonePrice{{"standard", 1}, {"premium", 1}}})
	if err != nil {
		t.Fatal(err)
	}
	in := localShowOf(m, e, "2027-03-26", 5)
	in.Start, in.ClosesTime = "02:30", "01:00"
	res, err := w.CreateDaily(ctx, staff, in)
	if err != nil || len(res) != 5 {
		t.Fatalf("results %+v, %v", res, err)
	}
	want := []struct {
		date, code, says, utc string
	}{
		{"2027-03-26", "", "", "2027-03-26T01:30:00Z"},
		{"2027-03-27", "", "", "2027-03-27T01:30:00Z"},
		{"2027-03-28", services.CodeInvalidRequest, "2027-03-28 02:30 does not exist in Europe/Berlin", ""},
		{"2027-03-29", services.CodeConflict, "overlaps show", ""},
		{"2027-03-30", "", "", "2027-03-30T00:30:00Z"},
	}
	for i, wnt := range want {
		r := res[i]
		t.Run(wnt.date, func(t *testing.T) {
			if r.Date != wnt.date || services.ErrorCode(r.Err) != wnt.code {
				t.Fatalf("day %d: %s %v, want %s %s", i, r.Date, r.Err, wnt.date, wnt.code)
			}
			if wnt.code != "" {
				if r.Show != nil || !strings.Contains(r.Err.Error(), wnt.says) {
					t.Errorf("refused day: %+v", r)
				}
				return
			}
			if r.Show.StartsAt.Format(time.RFC3339) != wnt.utc {
				t.Errorf("starts %s, want %s", r.Show.StartsAt.Format(time.RFC3339), wnt.utc)
			}
			if !r.Show.SaleOpensAt.Equal(res[0].Show.SaleOpensAt) {
				t.Errorf("sale opens %s, the first day's %s: every day opens together", r.Show.SaleOpensAt, res[0].Show.SaleOpensAt)
			}
			if r.Show.SaleClosesAt.In(berlin).Format("2006-01-02 15:04") != wnt.date+" 01:00" {
				t.Errorf("sale closes %s", r.Show.SaleClosesAt.In(berlin))
			}
			if a := auditRows(e, "show", r.Show.ID); len(a) != 1 || a[0].Action != "show.create" || *a[0].ActorID != staff {
				t.Errorf("audit of day %s: %+v", wnt.date, a)
			}
		})
	}
	if !strings.Contains(res[3].Err.Error(), "show "+strconv.FormatInt(blocker.ID, 10)) {
		t.Errorf("the overlap does not name show %d: %v", blocker.ID, res[3].Err)
	}
	if catalog.Created(res) != 3 {
		t.Errorf("Created = %d", catalog.Created(res))
	}

	shows := e.CountRows("shows")
	refused := []struct {
		name   string
		change func(*catalog.LocalShow)
		code   string
	}{
		{"no days", func(l *catalog.LocalShow) { l.Days = 0 }, services.CodeInvalidRequest},
		{"too many days", func(l *catalog.LocalShow) { l.Days = catalog.MaxRepeatDays + 1 }, services.CodeInvalidRequest},
		{"bad date", func(l *catalog.LocalShow) { l.Date = "2027-13-01" }, services.CodeInvalidRequest},
		{"bad sale date", func(l *catalog.LocalShow) { l.OpensDate = "" }, services.CodeInvalidRequest},
		{"missing price", func(l *catalog.LocalShow) { l.Prices = l.Prices[:1] }, services.CodeInvalidRequest},
		{"bad limit", func(l *catalog.LocalShow) { l.PurchaseLimit = catalog.MaxPurchaseLimit + 1 }, services.CodeInvalidRequest},
		{"pace too fast", func(l *catalog.LocalShow) { l.WaitingRoom, l.AdmitPerMinute = true, catalog.MaxAdmitPerMinute+1 }, services.CodeInvalidRequest},
		{"negative pace", func(l *catalog.LocalShow) { l.AdmitPerMinute = -1 }, services.CodeInvalidRequest},
		{"unknown movie", func(l *catalog.LocalShow) { l.MovieID = 987654 }, services.CodeNotFound},
		{"unknown hall", func(l *catalog.LocalShow) { l.HallID = 987654 }, services.CodeNotFound},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			l := localShowOf(m, e, "2027-05-01", 3)
			c.change(&l)
			if res, err := w.CreateDaily(ctx, staff, l); services.ErrorCode(err) != c.code || res != nil {
				t.Fatalf("%+v %v, want %s", res, err, c.code)
			}
		})
	}
	if n := e.CountRows("shows"); n != shows {
		t.Errorf("refused repeats stored shows: %d -> %d", shows, n)
	}
}

// TestCatalogWriter_CreateDailyWaitingRoom: a repeat created with its waiting room on
// gives every day the room at the pace asked for (the default pace when none is given);
// without it every day's room is off.
func TestCatalogWriter_CreateDailyWaitingRoom(t *testing.T) {
	e, w, staff, m := newCatalogWriterEnv(t)
	ctx := context.Background()
	cases := []struct {
		name     string
		date     string
		on       bool
		pace     int
		wantPace int
	}{
		{"on at a pace", "2027-06-01", true, 1200, 1200},
		{"on at the default pace", "2027-06-05", true, 0, catalog.DefaultAdmitPerMinute},
		{"off", "2027-06-09", false, 0, catalog.DefaultAdmitPerMinute},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := localShowOf(m, e, c.date, 2)
			in.WaitingRoom, in.AdmitPerMinute = c.on, c.pace
			res, err := w.CreateDaily(ctx, staff, in)
			if err != nil || catalog.Created(res) != 2 {
				t.Fatalf("results %+v, %v", res, err)
			}
			for _, r := range res {
				s, err := w.Show(ctx, r.Show.ID)
				if err != nil {
					t.Fatal(err)
				}
				if s.WaitingRoom != c.on || s.AdmitPerMinute != c.wantPace {
					t.Errorf("day %s: waiting room %v at %d a minute, want %v at %d", r.Date, s.WaitingRoom, s.AdmitPerMinute, c.on, c.wantPace)
				}
			}
		})
	}
}
