package catalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/catalog"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// newCatalogWriterEnv is the service test env with the catalog telling statuses by the
// test clock, a catalog writer, a staff account and a movie of 100 minutes.
func newCatalogWriterEnv(t *testing.T) (*testenv.TestEnv, *catalog.CatalogWriter, int64, *services.Movie) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.Catalog.WithClock(e.Clock)
	w := e.CatalogWriter(e.Shows)
	staff, err := e.Users.Create(context.Background(), "staff-"+strconv.FormatInt(time.Now().UnixNano(), 10)+"@test.example", "password-123", "Staff", services.RoleStaff)
	if err != nil {
		t.Fatal(err)
	}
	m, err := w.CreateMovie(context.Background(), staff, "Writer Test Movie", 100)
	if err != nil {
		t.Fatal(err)
	}
	return e, w, staff, m
}

// validShow is a show of movie m in the env's hall starting at starts with its sale open
// now, both zones priced.
func validShow(e *testenv.TestEnv, m *services.Movie, starts time.Time) catalog.NewShow {
	now := e.Clock.Now()
	return catalog.NewShow{MovieID: m.ID, HallID: e.Hall.ID, StartsAt: starts, SaleOpensAt: now.Add(-time.Minute),
		SaleClosesAt: starts.Add(-time.Hour), Prices: []catalog.ZonePrice{{"standard", 3700}, {"premium", 5200}}}
}

// auditRows reads the audit entries of one entity newest first (NULL before or after as
// an empty RawMessage).
func auditRows(e *testenv.TestEnv, entity string, id int64) []audit.AuditEntry {
	e.T.Helper()
	var out []audit.AuditEntry
	if err := e.DB.Select(&out, `SELECT id, actor_user_id, '' AS actor_email, action, entity, entity_id,
		COALESCE(before_json, '') AS before_json, COALESCE(after_json, '') AS after_json, created_at
		FROM audit_log WHERE entity = ? AND entity_id = ? ORDER BY id DESC`, entity, strconv.FormatInt(id, 10)); err != nil {
		e.T.Fatal(err)
	}
	return out
}

func TestCatalogWriter_CreateMovie(t *testing.T) {
	e, w, staff, first := newCatalogWriterEnv(t)
	ctx := context.Background()
	cases := []struct {
		name    string
		title   string
		runtime int
		want    string
	}{
		{"blank title", "   ", 100, services.CodeInvalidRequest},
		{"empty title", "", 100, services.CodeInvalidRequest},
		{"runtime zero", "Zero", 0, services.CodeInvalidRequest},
		{"runtime negative", "Negative", -5, services.CodeInvalidRequest},
		{"runtime over 600", "Too Long", 601, services.CodeInvalidRequest},
		{"duplicate title", "Writer Test Movie", 90, services.CodeConflict},
		{"duplicate title, other case and spaces", "  writer test MOVIE ", 90, services.CodeConflict},
		{"runtime 600", "Long One", 600, ""},
		{"runtime 1", "Short One", 1, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := e.CountRows("movies")
			m, err := w.CreateMovie(ctx, staff, c.title, c.runtime)
			if code := services.ErrorCode(err); code != c.want {
				t.Fatalf("got %v, want %q", err, c.want)
			}
			if c.want == services.CodeConflict && !errors.Is(err, catalog.ErrDuplicateTitle) {
				t.Errorf("a duplicate title is not ErrDuplicateTitle: %v", err)
			}
			if c.want != "" {
				if after := e.CountRows("movies"); after != before {
					t.Errorf("a refused movie was stored: %d -> %d", before, after)
				}
				return
			}
			if m.ID == 0 || m.RuntimeMin != c.runtime {
				t.Errorf("movie %+v", m)
			}
		})
	}
	movies, err := w.Movies(ctx)
	if err != nil || len(movies) != 4 {
		t.Fatalf("movies %v %v, want the env's own plus 3", movies, err)
	}
	entries := auditRows(e, "movie", first.ID)
	if len(entries) != 1 || entries[0].Action != "movie.create" || entries[0].ActorID == nil || *entries[0].ActorID != staff || len(entries[0].Before) != 0 {
		t.Fatalf("audit of movie.create: %+v", entries)
	}
	var after services.Movie
	if err := json.Unmarshal(entries[0].After, &after); err != nil || after.Title != "Writer Test Movie" || after.RuntimeMin != 100 {
		t.Errorf("audited after %s: %v", entries[0].After, err)
	}
}

func TestCatalogWriter_CreateShowValidation(t *testing.T) {
	e, w, staff, m := newCatalogWriterEnv(t)
	ctx := context.Background()
	now := e.Clock.Now()
	starts := now.Add(10 * 24 * time.Hour).Truncate(time.Hour)
	cases := []struct {
		name  string
		tweak func(*catalog.NewShow)
		want  string
	}{
		{"missing price of a hall zone", func(s *catalog.NewShow) { s.Prices = s.Prices[:1] }, services.CodeInvalidRequest},
		{"no prices", func(s *catalog.NewShow) { s.Prices = nil }, services.CodeInvalidRequest},
		{"unknown zone", func(s *catalog.NewShow) { s.Prices = append(s.Prices, catalog.ZonePrice{"vip", 9000}) }, services.CodeInvalidRequest},
		{"zone priced twice", func(s *catalog.NewShow) { s.Prices = append(s.Prices, catalog.ZonePrice{"standard", 1}) }, services.CodeInvalidRequest},
		{"negative price", func(s *catalog.NewShow) { s.Prices[0].PriceMinor = -1 }, services.CodeInvalidRequest},
		{"window opens when it closes", func(s *catalog.NewShow) { s.SaleOpensAt = s.SaleClosesAt }, services.CodeInvalidRequest},
		{"window opens after it closes", func(s *catalog.NewShow) { s.SaleOpensAt = s.SaleClosesAt.Add(time.Minute) }, services.CodeInvalidRequest},
		{"window closes after the start", func(s *catalog.NewShow) { s.SaleClosesAt = s.StartsAt.Add(time.Second) }, services.CodeInvalidRequest},
		{"start in the past", func(s *catalog.NewShow) {
			s.StartsAt, s.SaleOpensAt, s.SaleClosesAt = now.Add(-time.Hour), now.Add(-3*time.Hour), now.Add(-2*time.Hour)
		}, services.CodeInvalidRequest},
		{"start now", func(s *catalog.NewShow) { s.StartsAt, s.SaleClosesAt = now, now }, services.CodeInvalidRequest},
		{"limit over 100", func(s *catalog.NewShow) { s.PurchaseLimit = 101 }, services.CodeInvalidRequest},
		{"negative limit", func(s *catalog.NewShow) { s.PurchaseLimit = -1 }, services.CodeInvalidRequest},
		{"unknown movie", func(s *catalog.NewShow) { s.MovieID = 987654 }, services.CodeNotFound},
		{"unknown hall", func(s *catalog.NewShow) { s.HallID = 987654 }, services.CodeNotFound},
		{"window closing at the start, limit 100", func(s *catalog.NewShow) { s.SaleClosesAt, s.PurchaseLimit = s.StartsAt, 100 }, ""},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := validShow(e, m, starts.Add(time.Duration(i)*24*time.Hour))
			c.tweak(&in)
			shows, audits := e.CountRows("shows"), e.CountRows("audit_log")
			s, err := w.CreateShow(ctx, staff, in)
			if code := services.ErrorCode(err); code != c.want {
				t.Fatalf("got %v, want %q", err, c.want)
			}
			if c.want != "" {
				if e.CountRows("shows") != shows || e.CountRows("audit_log") != audits {
					t.Error("a refused show wrote something")
				}
				return
			}
			if s.Status != services.ShowOnSale || s.PurchaseLimit != in.PurchaseLimit || s.SeatsLeft == 0 {
				t.Errorf("show %+v", s)
			}
		})
	}
	t.Run("default limit, any offset stored as UTC", func(t *testing.T) {
		in := validShow(e, m, starts.Add(40*24*time.Hour).In(time.FixedZone("+08", 8*3600)))
		s, err := w.CreateShow(ctx, staff, in)
		if err != nil {
			t.Fatal(err)
		}
		if s.PurchaseLimit != 4 || s.StartsAt.Location() != time.UTC || !s.StartsAt.Equal(in.StartsAt) || s.Currency != "CNY" {
			t.Errorf("show %+v", s)
		}
		if p, _ := s.ZonePrice("premium"); p != 5200 {
			t.Errorf("premium price %d", p)
		}
	})
}

func TestCatalogWriter_Overlap(t *testing.T) {
	e, w, staff, m := newCatalogWriterEnv(t) // m runs 100 minutes: a show holds its hall 115 minutes
	ctx := context.Background()
	base := e.Clock.Now().Add(20 * 24 * time.Hour).Truncate(time.Hour)
	if _, err := w.CreateShow(ctx, staff, validShow(e, m, base)); err != nil {
		t.Fatal(err)
	}
	other := e.MakeLayout("Overlap Hall", testenv.RowSpec{Zone: "standard", Seats: "SSSS"}, testenv.RowSpec{Zone: "premium", Seats: "SSSS"})
	cases := []struct {
		name   string
		starts time.Duration
		hall   int64
		want   string
	}{
		{"same start", 0, 0, services.CodeConflict},
		{"during the runtime", 50 * time.Minute, 0, services.CodeConflict},
		{"during the cleaning time", 114 * time.Minute, 0, services.CodeConflict},
		{"ending in the other's cleaning time", -114 * time.Minute, 0, services.CodeConflict},
		{"right after the cleaning time", 115 * time.Minute, 0, ""},
		{"ending with its cleaning time at the other's start", -115 * time.Minute, 0, ""},
		{"same start, another hall", 0, other.ID, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := validShow(e, m, base.Add(c.starts))
			if c.hall != 0 {
				in.HallID = c.hall
			}
			s, err := w.CreateShow(ctx, staff, in)
			if services.ErrorCode(err) != c.want {
				t.Fatalf("got %v, want %q", err, c.want)
			}
			if s != nil {
				// keep the next case about the first show only
				e.Exec("UPDATE shows SET status = 'cancelled' WHERE id = ?", s.ID)
			}
		})
	}
	t.Run("a cancelled show leaves its slot free", func(t *testing.T) {
		if _, err := w.CreateShow(ctx, staff, validShow(e, m, base.Add(115*time.Minute+5*time.Minute))); err != nil {
			t.Fatal(err)
		}
	})
}

// TestCatalogWriter_ConcurrentOverlapOneWins proves the overlap rule under concurrency:
// writers racing to create overlapping shows in one hall (different starts, so the
// unique key on the start cannot help) leave exactly one show.
func TestCatalogWriter_ConcurrentOverlapOneWins(t *testing.T) {
	e, w, staff, m := newCatalogWriterEnv(t)
	ctx := context.Background()
	base := e.Clock.Now().Add(25 * 24 * time.Hour).Truncate(time.Hour)
	const writers = 8
	var wg sync.WaitGroup
	errs := make([]error, writers)
	start := make(chan struct{})
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			_, errs[i] = w.CreateShow(ctx, staff, validShow(e, m, base.Add(time.Duration(i)*10*time.Minute)))
		}(i)
	}
	close(start)
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch services.ErrorCode(err) {
		case "":
			won++
		case services.CodeConflict:
		default:
			t.Errorf("writer %d: %v", i, err)
		}
	}
	var n int
	if err := e.DB.Get(&n, "SELECT COUNT(*) FROM shows WHERE hall_id = ? AND starts_at >= ? AND starts_at < ?", e.Hall.ID, base, base.Add(2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if won != 1 || n != 1 {
		t.Fatalf("%d writers won, %d shows stored; want 1 and 1", won, n)
	}
}

// TestCatalogWriter_StatusFollowsWindow proves that a show's status follows its sale
// window by the clock alone: scheduled, on sale to the second (through the order path's
// cache too), closed; and that stored statuses keep their meaning.
func TestCatalogWriter_StatusFollowsWindow(t *testing.T) {
	e, w, staff, m := newCatalogWriterEnv(t)
	ctx := context.Background()
	now := e.Clock.Now()
	in := validShow(e, m, now.Add(30*24*time.Hour).Truncate(time.Hour))
	in.SaleOpensAt = now.Add(time.Hour)
	s, err := w.CreateShow(ctx, staff, in)
	if err != nil {
		t.Fatal(err)
	}
	if s.Status != services.ShowScheduled {
		t.Fatalf("a show opening in an hour reads %s", s.Status)
	}
	u := e.User(1)
	seats := e.SeatIDs("C1")
	order := func() error {
		_, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: u, ShowID: s.ID, SeatIDs: seats})
		return err
	}
	if err := order(); services.ErrorCode(err) != services.CodeNotOnSale {
		t.Fatalf("order before the sale opens: %v", err)
	}
	e.Clock.Advance(time.Hour - time.Second)
	if err := order(); services.ErrorCode(err) != services.CodeNotOnSale {
		t.Fatalf("order a second before the sale opens: %v", err)
	}
	e.Clock.Advance(time.Second) // the order path's cache still holds the show read above
	if err := order(); err != nil {
		t.Fatalf("order the second the sale opens: %v", err)
	}
	if got, _ := e.Catalog.Show(ctx, s.ID); got.Status != services.ShowOnSale || got.StoredStatus != services.ShowOnSale {
		t.Errorf("at sale_opens_at: %s (stored %s)", got.Status, got.StoredStatus)
	}
	e.Clock.Advance(in.SaleClosesAt.Sub(e.Clock.Now()))
	if got, _ := e.Catalog.Show(ctx, s.ID); got.Status != services.ShowClosed {
		t.Errorf("at sale_closes_at: %s", got.Status)
	}
	if err := order(); services.ErrorCode(err) != services.CodeNotOnSale {
		t.Fatalf("order at sale_closes_at: %v", err)
	}

	now = e.Clock.Now()
	cases := []struct {
		name          string
		stored        string
		opens, closes time.Duration
		want          string
	}{
		{"stored on_sale, window open", services.ShowOnSale, -time.Hour, 50 * time.Hour, services.ShowOnSale},
		{"stored on_sale, window opens later", services.ShowOnSale, time.Hour, 51 * time.Hour, services.ShowScheduled},
		{"stored on_sale, window closed", services.ShowOnSale, -3 * time.Hour, -time.Hour, services.ShowClosed},
		{"stored scheduled, window opens later", services.ShowScheduled, time.Hour, 52 * time.Hour, services.ShowScheduled},
		{"stored scheduled, window open: the window decides", services.ShowScheduled, -time.Hour, 53 * time.Hour, services.ShowOnSale},
		{"stored closed, window open", services.ShowClosed, -time.Hour, 54 * time.Hour, services.ShowOnSale},
		{"stored cancelled, window open", services.ShowCancelled, -time.Hour, 55 * time.Hour, services.ShowCancelled},
		{"stored draft, window open", services.ShowDraft, -time.Hour, 56 * time.Hour, services.ShowDraft},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sh := e.MakeShow(e.Hall.ID, c.stored, now.Add(c.opens), now.Add(c.closes))
			if sh.Status != c.want || sh.StoredStatus != c.stored {
				t.Errorf("reads %s (stored %s), want %s", sh.Status, sh.StoredStatus, c.want)
			}
			if sh.OnSaleAt(now) != (c.want == services.ShowOnSale) {
				t.Errorf("OnSaleAt = %v", sh.OnSaleAt(now))
			}
		})
	}
	t.Run("a sale that opens later opens by itself", func(t *testing.T) {
		sh := e.MakeShow(e.Hall.ID, services.ShowScheduled, now.Add(2*time.Hour), now.Add(60*time.Hour))
		e.Clock.Advance(2 * time.Hour)
		got, err := e.Catalog.Show(ctx, sh.ID)
		if err != nil || got.Status != services.ShowOnSale {
			t.Fatalf("after sale_opens_at: %v %v", got, err)
		}
		list, err := e.Shows.Between(ctx, sh.StartsAt, sh.StartsAt.Add(time.Second))
		if err != nil || len(list) != 1 || list[0].Status != services.ShowOnSale {
			t.Fatalf("listed: %v %v", list, err)
		}
	})
}

// TestCatalogWriter_UpdateAndSaleControl proves PATCH, open-sale and close-sale, their
// refusals, that new prices apply to new orders only, and their audit entries.
func TestCatalogWriter_UpdateAndSaleControl(t *testing.T) {
	e, w, staff, m := newCatalogWriterEnv(t)
	ctx := context.Background()
	now := e.Clock.Now()
	in := validShow(e, m, now.Add(30*24*time.Hour).Truncate(time.Hour))
	s, err := w.CreateShow(ctx, staff, in)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := e.Seats.States(ctx, s.ID)
	if err != nil || len(loaded) == 0 {
		t.Errorf("the seat map of a show created on sale is not loaded: %d fields, %v", len(loaded), err)
	}
	u := e.User(1)
	first, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: u, ShowID: s.ID, SeatIDs: e.SeatIDs("C1")})
	if err != nil || first.TotalMinor != 3700 {
		t.Fatalf("order at 3700: %+v %v", first, err)
	}
	limit := 6
	closes := in.SaleClosesAt.Add(-time.Hour)
	s, err = w.UpdateShow(ctx, staff, s.ID, catalog.ShowChange{Prices: []catalog.ZonePrice{{"standard", 4100}}, PurchaseLimit: &limit, SaleClosesAt: &closes})
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := s.ZonePrice("standard"); p != 4100 || s.PurchaseLimit != 6 || !s.SaleClosesAt.Equal(closes) {
		t.Errorf("after PATCH: %+v", s)
	}
	if p, _ := s.ZonePrice("premium"); p != 5200 {
		t.Errorf("an unnamed zone's price changed: %d", p)
	}
	second, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: u, ShowID: s.ID, SeatIDs: e.SeatIDs("C2")})
	if err != nil || second.TotalMinor != 4100 {
		t.Fatalf("order after the price change: %+v %v", second, err)
	}
	var kept int64
	if err := e.DB.Get(&kept, "SELECT price_minor FROM order_seats WHERE order_id = (SELECT id FROM orders WHERE order_no = ?)", first.OrderNo); err != nil || kept != 3700 {
		t.Errorf("the first order's seat now costs %d (%v)", kept, err)
	}

	bad := []struct {
		name string
		ch   catalog.ShowChange
		want string
	}{
		{"window opens after it closes", catalog.ShowChange{SaleOpensAt: &closes, SaleClosesAt: ptr(closes.Add(-time.Minute))}, services.CodeInvalidRequest},
		{"window closes after the start", catalog.ShowChange{SaleClosesAt: ptr(s.StartsAt.Add(time.Minute))}, services.CodeInvalidRequest},
		{"limit 0", catalog.ShowChange{PurchaseLimit: ptr(0)}, services.CodeInvalidRequest},
		{"unknown zone", catalog.ShowChange{Prices: []catalog.ZonePrice{{"vip", 1}}}, services.CodeInvalidRequest},
		{"negative price", catalog.ShowChange{Prices: []catalog.ZonePrice{{"standard", -1}}}, services.CodeInvalidRequest},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			audits := e.CountRows("audit_log")
			if _, err := w.UpdateShow(ctx, staff, s.ID, c.ch); services.ErrorCode(err) != c.want {
				t.Fatalf("got %v, want %s", err, c.want)
			}
			if e.CountRows("audit_log") != audits {
				t.Error("a refused change was audited")
			}
		})
	}
	if _, err := w.UpdateShow(ctx, staff, 987654, catalog.ShowChange{PurchaseLimit: &limit}); services.ErrorCode(err) != services.CodeNotFound {
		t.Errorf("PATCH of an unknown show: %v", err)
	}

	s, err = w.CloseSale(ctx, staff, s.ID)
	if err != nil || s.Status != services.ShowClosed {
		t.Fatalf("close-sale: %+v %v", s, err)
	}
	if _, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: u, ShowID: s.ID, SeatIDs: e.SeatIDs("C3")}); services.ErrorCode(err) != services.CodeNotOnSale {
		t.Fatalf("order after close-sale: %v", err)
	}
	// close-sale then open-sale is one undo: the closed window reopens up to the start
	if s, err = w.OpenSale(ctx, staff, s.ID); err != nil || s.Status != services.ShowOnSale || !s.SaleClosesAt.Equal(s.StartsAt) {
		t.Fatalf("open-sale after close-sale: %+v %v", s, err)
	}
	if _, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: u, ShowID: s.ID, SeatIDs: e.SeatIDs("C3")}); err != nil {
		t.Fatalf("order after close-sale and open-sale: %v", err)
	}
	later := s.StartsAt.Add(-2 * time.Hour)
	if s, err = w.UpdateShow(ctx, staff, s.ID, catalog.ShowChange{SaleClosesAt: &later}); err != nil || s.Status != services.ShowOnSale {
		t.Fatalf("PATCH reopening the window: %+v %v", s, err)
	}
	opensAt := s.StartsAt.Add(-5 * time.Hour)
	if s, err = w.UpdateShow(ctx, staff, s.ID, catalog.ShowChange{SaleOpensAt: &opensAt}); err != nil || s.Status != services.ShowScheduled {
		t.Fatalf("PATCH moving the opening later: %+v %v", s, err)
	}
	e.Clock.Advance(time.Minute)
	if s, err = w.OpenSale(ctx, staff, s.ID); err != nil || s.Status != services.ShowOnSale || !s.SaleOpensAt.Equal(e.Clock.Now()) {
		t.Fatalf("open-sale: %+v %v", s, err)
	}
	if _, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: u, ShowID: s.ID, SeatIDs: e.SeatIDs("C4")}); err != nil {
		t.Fatalf("order after open-sale: %v", err)
	}
	audits := e.CountRows("audit_log")
	if again, err := w.OpenSale(ctx, staff, s.ID); err != nil || !again.SaleOpensAt.Equal(s.SaleOpensAt) || e.CountRows("audit_log") != audits {
		t.Errorf("open-sale of a show on sale changed something: %+v %v", again, err)
	}

	e.Exec("UPDATE shows SET status = 'cancelled' WHERE id = ?", s.ID)
	for name, call := range map[string]func() error{
		"PATCH": func() error {
			_, err := w.UpdateShow(ctx, staff, s.ID, catalog.ShowChange{PurchaseLimit: &limit})
			return err
		},
		"open-sale":  func() error { _, err := w.OpenSale(ctx, staff, s.ID); return err },
		"close-sale": func() error { _, err := w.CloseSale(ctx, staff, s.ID); return err },
	} {
		if err := call(); services.ErrorCode(err) != services.CodeConflict {
			t.Errorf("%s of a cancelled show: %v", name, err)
		}
	}

	entries := auditRows(e, "show", s.ID)
	var actions []string
	for _, en := range entries {
		actions = append(actions, en.Action)
		if en.ActorID == nil || *en.ActorID != staff {
			t.Errorf("%s audited without its actor", en.Action)
		}
	}
	want := []string{"show.open_sale", "show.update", "show.update", "show.open_sale", "show.close_sale", "show.update", "show.create"}
	if len(actions) != len(want) {
		t.Fatalf("audit actions %v, want %v", actions, want)
	}
	for i := range want {
		if actions[i] != want[i] {
			t.Fatalf("audit actions %v, want %v", actions, want)
		}
	}
	var before, after catalog.ShowWriteAudit
	closeEntry := entries[4]
	if err := json.Unmarshal(closeEntry.Before, &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(closeEntry.After, &after); err != nil {
		t.Fatal(err)
	}
	if before.Status != services.ShowOnSale || after.Status != services.ShowClosed || after.Prices["standard"] != 4100 || after.PurchaseLimit != 6 {
		t.Errorf("close-sale audited %s -> %s", closeEntry.Before, closeEntry.After)
	}
	var reopened catalog.ShowWriteAudit
	if err := json.Unmarshal(entries[3].After, &reopened); err != nil {
		t.Fatal(err)
	}
	if reopened.Status != services.ShowOnSale || !reopened.SaleClosesAt.Equal(s.StartsAt) {
		t.Errorf("the reopening open-sale audited %s", entries[3].After)
	}
	if len(entries[6].Before) != 0 || len(entries[6].After) == 0 {
		t.Errorf("show.create audited before %s after %s", entries[6].Before, entries[6].After)
	}
}

func ptr[T any](v T) *T { return &v }

// TestOpenSale_ReopensUntilTheStart: open-sale reopens a sale whose window passed, up to
// the show's start (API.md: open-sale answers the show on_sale now), and refuses once
// the show has started, writing nothing.
func TestOpenSale_ReopensUntilTheStart(t *testing.T) {
	e, w, staff, m := newCatalogWriterEnv(t)
	ctx := context.Background()
	in := validShow(e, m, e.Clock.Now().Add(120*time.Hour).Truncate(time.Hour)) // clear of the env's show
	in.SaleClosesAt = in.StartsAt.Add(-24 * time.Hour)
	s, err := w.CreateShow(ctx, staff, in)
	if err != nil {
		t.Fatal(err)
	}
	e.Clock.Advance(100 * time.Hour) // past sale_closes_at, before the start
	if s, err = w.OpenSale(ctx, staff, s.ID); err != nil || s.Status != services.ShowOnSale || !s.SaleClosesAt.Equal(s.StartsAt) {
		t.Fatalf("open-sale after the window passed: %+v %v", s, err)
	}
	e.Clock.Advance(30 * time.Hour) // past the start
	audits := e.CountRows("audit_log")
	if _, err := w.OpenSale(ctx, staff, s.ID); services.ErrorCode(err) != services.CodeConflict {
		t.Fatalf("open-sale of a started show: %v, want CONFLICT", err)
	}
	if e.CountRows("audit_log") != audits {
		t.Error("a refused open-sale was audited")
	}
}
