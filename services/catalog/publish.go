package catalog

import (
	"context"
	"time"

	"seatflow/services"
	"seatflow/services/store"
)

// SeatCounts are a show's seats by state as MySQL records them: Sold by paid orders,
// Held by pending orders, Free the sellable seats of the hall left over.
type SeatCounts struct {
	Sold, Held, Free int
}

// Show returns show id as staff see it (any status, drafts too) with seats left.
// Errors: NOT_FOUND, UNAVAILABLE.
func (w *CatalogWriter) Show(ctx context.Context, id int64) (*services.Show, error) {
	return w.read(ctx, id)
}

// SeatCounts counts the seats of each show sold, held and free, by show id.
// Errors: UNAVAILABLE.
func (w *CatalogWriter) SeatCounts(ctx context.Context, shows []*services.Show) (map[int64]SeatCounts, error) {
	out := map[int64]SeatCounts{}
	if len(shows) == 0 {
		return out, nil
	}
	ids := make([]int64, len(shows))
	for i, s := range shows {
		ids[i] = s.ID
	}
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	rows, err := store.ShowsLiveSeatsByStatus(qctx, w.db, ids)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	for _, r := range rows {
		c := out[r.ShowID]
		switch r.Status {
		case services.OrderPaid:
			c.Sold += r.N
		case services.OrderPending:
			c.Held += r.N
		}
		out[r.ShowID] = c
	}
	for _, s := range shows {
		hall, err := w.catalog.Hall(ctx, s.HallID)
		if err != nil {
			return nil, err
		}
		c := out[s.ID]
		for _, st := range hall.Seats {
			if st.Sellable() {
				c.Free++
			}
		}
		c.Free -= c.Sold + c.Held
		out[s.ID] = c
	}
	return out, nil
}

// PublishAhead is how long before a sale opens its seat map is loaded into the seat
// cache, so the first buyers do not wait for the load.
const PublishAhead = 10 * time.Minute

// PreloadOpeningSales loads into the seat cache the seat maps of the shows whose sale
// opens within the next ahead (or opened in the last ahead) and whose map is not loaded
// yet; cancelled and draft shows are left out. Loading goes through the seat store's
// single-flight load and is idempotent. It returns how many maps it loaded; a failed
// load is returned as the error after trying the others (the map then loads lazily on
// first use). Errors: UNAVAILABLE.
func (w *CatalogWriter) PreloadOpeningSales(ctx context.Context, ahead time.Duration) (int, error) {
	now := w.clock.Now()
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	ids, err := store.ShowsOpeningBetween(qctx, w.db, now.Add(-ahead), now.Add(ahead), now)
	cancel()
	if err != nil {
		return 0, store.Unavailable("the database", err)
	}
	if len(ids) == 0 {
		return 0, nil
	}
	loaded, err := w.maps.ZoneFree(ctx, ids)
	if err != nil {
		return 0, err
	}
	n := 0
	var firstErr error
	for _, id := range ids {
		if _, ok := loaded[id]; ok {
			continue
		}
		if err := w.maps.Load(ctx, id); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		n++
	}
	return n, firstErr
}
