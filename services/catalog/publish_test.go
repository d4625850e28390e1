package catalog_test

import (
	"context"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/catalog"
)

// TestCatalogWriter_PreloadOpeningSales proves publishing ahead of the sale: the seat
// map of a show whose sale opens within the window is loaded into the seat cache once;
// a sale opening later, a cancelled show and a draft are left alone.
func TestCatalogWriter_PreloadOpeningSales(t *testing.T) {
	e, w, staff, m := newCatalogWriterEnv(t)
	ctx := context.Background()
	now := e.Clock.Now()
	create := func(days int, opensIn time.Duration) *services.Show {
		in := validShow(e, m, now.Add(time.Duration(days)*24*time.Hour).Truncate(time.Hour))
		in.SaleOpensAt = now.Add(opensIn)
		s, err := w.CreateShow(ctx, staff, in)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	soon := create(3, 5*time.Minute)
	later := create(4, time.Hour)
	cancelled := create(5, 3*time.Minute)
	e.Exec("UPDATE shows SET status = 'cancelled' WHERE id = ?", cancelled.ID)
	draft := create(6, 4*time.Minute)
	e.Exec("UPDATE shows SET status = 'draft' WHERE id = ?", draft.ID)
	if err := e.RDB.FlushDB(ctx).Err(); err != nil { // whatever CreateShow loaded
		t.Fatal(err)
	}
	loaded := func() map[int64]bool {
		z, err := e.Seats.ZoneFree(ctx, []int64{soon.ID, later.ID, cancelled.ID, draft.ID})
		if err != nil {
			t.Fatal(err)
		}
		out := map[int64]bool{}
		for id := range z {
			out[id] = true
		}
		return out
	}
	n, err := w.PreloadOpeningSales(ctx, catalog.PublishAhead)
	if err != nil || n != 1 {
		t.Fatalf("first run loaded %d, %v; want 1", n, err)
	}
	if got := loaded(); !got[soon.ID] || len(got) != 1 {
		t.Fatalf("loaded %v, want only show %d", got, soon.ID)
	}
	if z, _ := e.Seats.ZoneFree(ctx, []int64{soon.ID}); z[soon.ID]["standard"] != 140 || z[soon.ID]["premium"] != 59 {
		t.Errorf("loaded zone counts %v", z[soon.ID])
	}
	if n, err := w.PreloadOpeningSales(ctx, catalog.PublishAhead); err != nil || n != 0 {
		t.Errorf("second run loaded %d, %v; want 0 (already loaded)", n, err)
	}
	e.Clock.Advance(55 * time.Minute)
	if n, err := w.PreloadOpeningSales(ctx, catalog.PublishAhead); err != nil || n != 1 || !loaded()[later.ID] {
		t.Errorf("five minutes before the later sale: loaded %d, %v", n, err)
	}
}
