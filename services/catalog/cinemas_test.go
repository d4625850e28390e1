package catalog_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/seats"
	"seatflow/services/store"
)

func TestCatalogWriter_CreateCinema(t *testing.T) {
	e, w, admin, _ := newCatalogWriterEnv(t)
	ctx := context.Background()
	london, err := w.CreateCinema(ctx, admin, catalog.CinemaInput{Name: " seatflow London ", TimeZone: "Europe/London", Currency: "GBP"})
	if err != nil {
		t.Fatal(err)
	}
	if london.Name != "seatflow London" || london.TimeZone != "Europe/London" || london.Currency != "GBP" || london.ID == 0 {
		t.Errorf("created %+v", london)
	}
	if a := e.AuditOf("cinema", strconv.FormatInt(london.ID, 10)); len(a) != 1 || a[0].Action != "cinema.create" || a[0].ActorID == nil || *a[0].ActorID != admin {
		t.Errorf("audit of the new cinema: %+v, want one cinema.create by %d", a, admin)
	}
	cases := []struct {
		name string
		in   catalog.CinemaInput
		code string
	}{
		{"empty name", catalog.CinemaInput{Name: " ", TimeZone: "UTC", Currency: "EUR"}, services.CodeInvalidRequest},
		{"unknown zone", catalog.CinemaInput{Name: "A", TimeZone: "Mars/Olympus", Currency: "EUR"}, services.CodeInvalidRequest},
		{"Local is not a zone", catalog.CinemaInput{Name: "A", TimeZone: "Local", Currency: "EUR"}, services.CodeInvalidRequest},
		{"lower-case currency", catalog.CinemaInput{Name: "A", TimeZone: "UTC", Currency: "eur"}, services.CodeInvalidRequest},
		{"not an ISO 4217 code", catalog.CinemaInput{Name: "A", TimeZone: "UTC", Currency: "ABC"}, services.CodeInvalidRequest},
		{"no currency (XXX)", catalog.CinemaInput{Name: "A", TimeZone: "UTC", Currency: "XXX"}, services.CodeInvalidRequest},
		{"gold (XAU)", catalog.CinemaInput{Name: "A", TimeZone: "UTC", Currency: "XAU"}, services.CodeInvalidRequest},
		{"name in use", catalog.CinemaInput{Name: "SEATFLOW LONDON", TimeZone: "UTC", Currency: "EUR"}, services.CodeConflict},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := e.CountRows("cinemas")
			_, err := w.CreateCinema(ctx, admin, c.in)
			if services.ErrorCode(err) != c.code {
				t.Fatalf("err = %v, want %s", err, c.code)
			}
			if c.code == services.CodeConflict && !errors.Is(err, catalog.ErrDuplicateCinemaName) {
				t.Errorf("a name in use: %v, want ErrDuplicateCinemaName", err)
			}
			if after := e.CountRows("cinemas"); after != before {
				t.Errorf("a refused cinema changed the cinemas: %d -> %d", before, after)
			}
		})
	}
	t.Run("update", func(t *testing.T) {
		got, err := w.UpdateCinema(ctx, admin, london.ID, catalog.CinemaInput{Name: "seatflow Soho", TimeZone: "Europe/London", Currency: "GBP"})
		if err != nil || got.Name != "seatflow Soho" {
			t.Fatalf("update: %+v %v", got, err)
		}
		if _, err := w.UpdateCinema(ctx, admin, london.ID+100, catalog.CinemaInput{Name: "X", TimeZone: "UTC", Currency: "EUR"}); services.ErrorCode(err) != services.CodeNotFound {
			t.Errorf("update of an unknown cinema: %v, want NOT_FOUND", err)
		}
	})
	t.Run("halls by cinema", func(t *testing.T) {
		h, err := w.CreateHall(ctx, admin, catalog.HallInput{CinemaID: london.ID, Name: "Studio 9", Layout: "SS"})
		if err != nil || h.CinemaID != london.ID {
			t.Fatalf("a hall in the second cinema: %+v %v", h, err)
		}
		// the same name in the first cinema is another hall; twice in one cinema is not
		if _, err := w.CreateHall(ctx, admin, catalog.HallInput{Name: "Studio 9", Layout: "SS"}); err != nil {
			t.Errorf("Studio 9 in the first cinema: %v", err)
		}
		if _, err := w.CreateHall(ctx, admin, catalog.HallInput{CinemaID: london.ID, Name: "studio 9", Layout: "SS"}); !errors.Is(err, catalog.ErrDuplicateHallName) {
			t.Errorf("a second Studio 9 in London: %v, want ErrDuplicateHallName", err)
		}
		if _, err := w.CreateHall(ctx, admin, catalog.HallInput{CinemaID: london.ID + 100, Name: "Nowhere", Layout: "SS"}); services.ErrorCode(err) != services.CodeNotFound {
			t.Errorf("a hall in an unknown cinema: %v, want NOT_FOUND", err)
		}
	})
	t.Run("a hall without a cinema for limited staff", func(t *testing.T) {
		first, err := e.Catalog.FirstCinema(ctx)
		if err != nil {
			t.Fatal(err)
		}
		paris, err := w.CreateCinema(ctx, admin, catalog.CinemaInput{Name: "seatflow Paris", TimeZone: "Europe/Paris", Currency: "EUR"})
		if err != nil {
			t.Fatal(err)
		}
		limited := func(ids ...int64) context.Context {
			return services.WithCinemaScope(ctx, services.CinemaScope{IDs: ids})
		}
		for i, tc := range []struct {
			name string
			ctx  context.Context
			want int64  // the hall's cinema
			code string // or the error's
		}{
			{"every cinema: the first", ctx, first.ID, ""},
			{"the first among theirs: the first", limited(first.ID, london.ID), first.ID, ""},
			{"one cinema: that one", limited(london.ID), london.ID, ""},
			{"several cinemas, not the first: name one", limited(london.ID, paris.ID), 0, services.CodeInvalidRequest},
		} {
			t.Run(tc.name, func(t *testing.T) {
				h, err := w.CreateHall(tc.ctx, admin, catalog.HallInput{Name: "Unnamed " + strconv.Itoa(i), Layout: "SS"})
				if tc.code != "" {
					if services.ErrorCode(err) != tc.code {
						t.Fatalf("err = %v, want %s", err, tc.code)
					}
					return
				}
				if err != nil || h.CinemaID != tc.want {
					t.Fatalf("hall %+v, %v; want it in cinema %d", h, err, tc.want)
				}
			})
		}
	})
}

// TestListing_EachCinemasOwnLocalDay lists a chain's shows by date: a show belongs to the
// local day of its own cinema, around each cinema's midnight, with or without a cinema
// filter.
func TestListing_EachCinemasOwnLocalDay(t *testing.T) {
	e, w, admin, m := newCatalogWriterEnv(t)
	ctx := context.Background()
	e.Exec("UPDATE cinemas SET time_zone = 'Asia/Shanghai'")
	e.Catalog.ForgetCinemas()
	london, err := w.CreateCinema(ctx, admin, catalog.CinemaInput{Name: "London", TimeZone: "Europe/London", Currency: "GBP"})
	if err != nil {
		t.Fatal(err)
	}
	shanghaiHall, err := w.CreateHall(ctx, admin, catalog.HallInput{Name: "SH 1", Layout: "SS"})
	if err != nil {
		t.Fatal(err)
	}
	londonHall, err := w.CreateHall(ctx, admin, catalog.HallInput{CinemaID: london.ID, Name: "LDN 1", Layout: "SS"})
	if err != nil {
		t.Fatal(err)
	}
	// the env's clock: 30 Nov 2026 10:00 UTC. 23:30 on 1 Dec in Shanghai is 15:30 UTC;
	// 00:15 on 2 Dec in London is 00:15 UTC (GMT in winter)
	shanghaiLate := hallShow(t, e, w, admin, m, shanghaiHall, time.Date(2026, 12, 1, 15, 30, 0, 0, time.UTC))
	londonEarly := hallShow(t, e, w, admin, m, londonHall, time.Date(2026, 12, 2, 0, 15, 0, 0, time.UTC))
	londonLate := hallShow(t, e, w, admin, m, londonHall, time.Date(2026, 12, 1, 21, 0, 0, 0, time.UTC))
	listing := seats.NewListing(e.DB, e.Catalog, e.Seats, e.Clock, time.UTC)
	cases := []struct {
		date   string
		cinema int64
		want   []int64
	}{
		{"2026-12-01", 0, []int64{shanghaiLate.ID, londonLate.ID}},
		{"2026-12-02", 0, []int64{londonEarly.ID}},
		{"2026-12-01", london.ID, []int64{londonLate.ID}},
		{"2026-12-02", london.ID, []int64{londonEarly.ID}},
		{"2026-12-01", shanghaiHall.CinemaID, []int64{shanghaiLate.ID}},
		{"2026-12-02", shanghaiHall.CinemaID, nil},
	}
	for _, c := range cases {
		t.Run(c.date+"/"+strconv.FormatInt(c.cinema, 10), func(t *testing.T) {
			got, err := listing.OnDate(ctx, c.date, c.cinema)
			if err != nil {
				t.Fatal(err)
			}
			mine := map[int64]bool{shanghaiLate.ID: true, londonEarly.ID: true, londonLate.ID: true}
			var ids []int64
			for _, s := range got {
				if mine[s.ID] { // the env's own show is not one of this test's
					ids = append(ids, s.ID)
				}
				if s.LocalDate() != c.date {
					t.Errorf("show %d listed on %s starts on %s in its cinema", s.ID, c.date, s.LocalDate())
				}
			}
			if len(ids) != len(c.want) {
				t.Fatalf("listed %v, want %v", ids, c.want)
			}
			for i := range ids {
				if ids[i] != c.want[i] {
					t.Fatalf("listed %v, want %v (by start)", ids, c.want)
				}
			}
		})
	}
	if _, err := listing.OnDate(ctx, "2026-12-01", london.ID+100); services.ErrorCode(err) != services.CodeNotFound {
		t.Errorf("an unknown cinema: %v, want NOT_FOUND", err)
	}
}

// TestCatalogWriter_CinemaCounts counts each cinema's halls and the staff limited to it
// (an account that is no longer staff is not counted).
func TestCatalogWriter_CinemaCounts(t *testing.T) {
	e, w, admin, _ := newCatalogWriterEnv(t)
	ctx := context.Background()
	first := e.Hall.CinemaID
	london, err := w.CreateCinema(ctx, admin, catalog.CinemaInput{Name: "seatflow London", TimeZone: "Europe/London", Currency: "GBP"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Screen 1", "Screen 2"} {
		if _, err := w.CreateHall(ctx, admin, catalog.HallInput{CinemaID: london.ID, Name: name, Layout: "SS"}); err != nil {
			t.Fatal(err)
		}
	}
	for i, role := range []string{services.RoleStaff, services.RoleCustomer} {
		u, err := e.Users.Create(ctx, "counted-"+strconv.Itoa(i)+"-"+strconv.FormatInt(time.Now().UnixNano(), 10)+"@test.example", "password-123", "Counted", role)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.SetStaffCinemas(ctx, e.DB, u, []int64{london.ID}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := w.CinemaCounts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got[london.ID] != (catalog.CinemaCounts{Halls: 2, Staff: 1}) {
		t.Errorf("London: %+v, want 2 halls and 1 staff", got[london.ID])
	}
	if got[first].Halls < 1 || got[first].Staff != 0 {
		t.Errorf("the first cinema: %+v, want its halls and no limited staff", got[first])
	}
}
