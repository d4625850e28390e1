package demo_test

import (
	"context"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"seatflow/services/accounts"
	"seatflow/services/demo"
	"seatflow/services/internal/testenv"
	"seatflow/services/store"
)

// TestSeedDemo_ChainOfTwoCinemas seeds the demo as `make run` does (Chain) across
// Europe/London's spring-forward night and checks the chain: a second cinema in its own
// zone and currency, its hall, its shows at its own local times on each side of the
// clock change and priced in its currency, the first cinema's shows at theirs, and a
// second run that creates nothing.
func TestSeedDemo_ChainOfTwoCinemas(t *testing.T) {
	db := testenv.NewTestDB(t)
	ctx := context.Background()
	shanghai, london := demoTestZone(t), mustZone(t, "Europe/London")
	if _, err := db.Exec("UPDATE cinemas SET time_zone = 'Asia/Shanghai'"); err != nil {
		t.Fatal(err)
	}
	// Friday 29 March 2030, 10:00 in London: the clocks go forward early on Sunday 31 March
	now := time.Date(2030, 3, 29, 10, 0, 0, 0, london).UTC()
	users := accounts.NewUsers(db, testenv.FixedClock{T: now}, bcrypt.MinCost)
	opt := demo.DemoOptions{Now: now, Zone: shanghai, Currency: "CNY", PurchaseLimit: 4, Chain: true}
	rep, err := demo.SeedDemo(ctx, db, users, opt)
	if err != nil {
		t.Fatal(err)
	}
	if rep.CinemasCreated != 1 || rep.HallsCreated != 4 {
		t.Fatalf("want 1 cinema and 4 halls created, got %+v", rep)
	}
	cinemas, err := store.Cinemas(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if len(cinemas) != 2 || cinemas[1].Name != demo.DemoBranch.Name || cinemas[1].TimeZone != "Europe/London" || cinemas[1].Currency != "GBP" {
		t.Fatalf("cinemas = %+v, want the first and %+v", cinemas, demo.DemoBranch)
	}

	var shows []struct {
		ID       int64     `db:"id"`
		StartsAt time.Time `db:"starts_at"`
		Currency string    `db:"currency"`
		CinemaID int64     `db:"cinema_id"`
		Hall     string    `db:"hall"`
		Standard int64     `db:"standard"`
	}
	if err := db.Select(&shows, `SELECT sh.id, sh.starts_at, sh.currency, h.cinema_id, h.name AS hall,
		(SELECT sp.price_minor FROM show_prices sp JOIN zones z ON z.id = sp.zone_id WHERE sp.show_id = sh.id AND z.code = 'standard') AS standard
		FROM shows sh JOIN halls h ON h.id = sh.hall_id ORDER BY sh.starts_at`); err != nil {
		t.Fatal(err)
	}
	branchTimes := map[string]bool{"12:00": true, "15:00": true, "18:30": true, "21:15": true}
	firstTimes := map[string]bool{}
	for _, tm := range []string{"10:30", "13:45", "16:30", "19:30", "22:00", "11:00", "14:15", "17:30", "20:45", "12:15", "15:45", "19:15", "22:30"} {
		firstTimes[tm] = true
	}
	utcHours := map[string]map[int]bool{} // London local day -> UTC hours of its 12:00 shows
	branchShows := 0
	for _, s := range shows {
		switch s.CinemaID {
		case cinemas[1].ID:
			branchShows++
			local := s.StartsAt.In(london)
			if s.Hall != "Screen 1" || s.Currency != "GBP" || !branchTimes[local.Format("15:04")] {
				t.Errorf("branch show %d: hall %s, %s, %s local; want Screen 1, GBP at 12:00/15:00/18:30/21:15 London time", s.ID, s.Hall, s.Currency, local.Format("2006-01-02 15:04"))
			}
			want := int64(1250)
			if local.Hour() >= 18 {
				want += 200
			}
			if s.Standard != want {
				t.Errorf("branch show at %s costs %d, want %d", local.Format("2006-01-02 15:04"), s.Standard, want)
			}
			if local.Format("15:04") == "12:00" {
				day := local.Format(time.DateOnly)
				if utcHours[day] == nil {
					utcHours[day] = map[int]bool{}
				}
				utcHours[day][s.StartsAt.UTC().Hour()] = true
			}
		case cinemas[0].ID:
			if local := s.StartsAt.In(shanghai); s.Currency != "CNY" || !firstTimes[local.Format("15:04")] {
				t.Errorf("first cinema's show %d at %s local in %s; want its own local times in CNY", s.ID, local.Format("15:04"), s.Currency)
			}
		default:
			t.Errorf("show %d in cinema %d", s.ID, s.CinemaID)
		}
	}
	if branchShows != 7*4 {
		t.Errorf("branch has %d shows, want 7 days x 4", branchShows)
	}
	// noon in London is 12:00 UTC before the change and 11:00 UTC after it
	if !utcHours["2030-03-30"][12] || !utcHours["2030-03-31"][11] {
		t.Errorf("London noon shows in UTC hours: %v; want 12 on 30 March and 11 on 31 March", utcHours)
	}

	again, err := demo.SeedDemo(ctx, db, users, opt)
	if err != nil {
		t.Fatal(err)
	}
	if again.CinemasCreated+again.HallsCreated+again.ShowsCreated+again.OrdersCreated != 0 {
		t.Errorf("a second seed created %+v, want nothing", again)
	}
}

// TestSeedDemo_ChainBesideALondonCinema: when the first cinema is already in London, the
// chain's second cinema is in another zone (DemoBranchAlt), so the demo still spans two.
func TestSeedDemo_ChainBesideALondonCinema(t *testing.T) {
	db := testenv.NewTestDB(t)
	ctx := context.Background()
	london := mustZone(t, "Europe/London")
	now := time.Date(2030, 6, 1, 10, 0, 0, 0, london).UTC()
	users := accounts.NewUsers(db, testenv.FixedClock{T: now}, bcrypt.MinCost)
	if _, err := demo.SeedDemo(ctx, db, users, demo.DemoOptions{Now: now, Zone: london, Currency: "GBP", Chain: true}); err != nil {
		t.Fatal(err)
	}
	cinemas, err := store.Cinemas(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if len(cinemas) != 2 || cinemas[1].TimeZone != demo.DemoBranchAlt.TimeZone {
		t.Fatalf("cinemas = %+v, want a second one in %s", cinemas, demo.DemoBranchAlt.TimeZone)
	}
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}
