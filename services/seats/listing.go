package seats

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/store"
)

// Listing answers the browsing questions of moviegoers: shows of a day, one show with its
// zones and seats left, and a show's seat map.
type Listing struct {
	db      *sqlx.DB
	catalog *catalog.Catalog
	seats   *SeatStore
	clock   services.Clock
	zone    *time.Location
	mirrors *SeatMirrors // SeatStates answers from it when set (SetMirrors)
}

// NewListing returns the browsing service; zone is the cinema's time zone (dates given by
// people are days there, invariant 7).
func NewListing(db *sqlx.DB, catalog *catalog.Catalog, seats *SeatStore, clock services.Clock, zone *time.Location) *Listing {
	return &Listing{db: db, catalog: catalog, seats: seats, clock: clock, zone: zone}
}

// Zone returns the install's first cinema's time zone (the zone given to NewListing
// when the cinemas cannot be read): the zone of pages that belong to no show.
func (s *Listing) Zone() *time.Location {
	if c, err := s.catalog.FirstCinema(context.Background()); err == nil {
		return c.Loc()
	}
	return s.zone
}

// Today returns today's date in the first cinema's time zone (YYYY-MM-DD).
func (s *Listing) Today() string { return s.clock.Now().In(s.Zone()).Format(time.DateOnly) }

// TodayIn returns today's date in loc (YYYY-MM-DD).
func (s *Listing) TodayIn(loc *time.Location) string {
	return s.clock.Now().In(loc).Format(time.DateOnly)
}

// Cinemas lists every cinema, the install's first cinema first. Errors: UNAVAILABLE.
func (s *Listing) Cinemas(ctx context.Context) ([]services.Cinema, error) {
	return s.catalog.Cinemas(ctx)
}

// Cinema returns one cinema. Errors: NOT_FOUND, UNAVAILABLE.
func (s *Listing) Cinema(ctx context.Context, id int64) (services.Cinema, error) {
	return s.catalog.Cinema(ctx, id)
}

// OnDate lists the public shows starting on date, by start time, with zones, prices
// and seats left: date is YYYY-MM-DD in each show's own cinema's time zone ("" means
// today there), so a chain's listing of a day holds each cinema's shows of its local
// day. cinemaID 0 lists every cinema; another lists that cinema's shows only (API.md
// "Cinemas"). Errors: INVALID_REQUEST (bad date), NOT_FOUND (cinema), UNAVAILABLE.
func (s *Listing) OnDate(ctx context.Context, date string, cinemaID int64) ([]*services.Show, error) {
	if date != "" {
		if _, err := time.Parse(time.DateOnly, date); err != nil {
			return nil, services.Errorf(services.CodeInvalidRequest, "date must be YYYY-MM-DD")
		}
	}
	cinemas, err := s.catalog.Cinemas(ctx)
	if err != nil {
		return nil, err
	}
	if cinemaID != 0 {
		c, err := s.catalog.Cinema(ctx, cinemaID)
		if err != nil {
			return nil, err
		}
		cinemas = []services.Cinema{c}
	}
	windows, err := s.localDays(date, cinemas)
	if err != nil {
		return nil, err
	}
	shows, err := s.catalog.ShowsIn(ctx, windows)
	if err != nil {
		return nil, err
	}
	return shows, s.FillSeatsLeft(ctx, shows)
}

// localDays returns one window per time zone of the cinemas: the local day date ("":
// today in that zone) from its midnight to the next, in UTC, clipped to the range
// MySQL's DATETIME holds (a day outside it has no window).
func (s *Listing) localDays(date string, cinemas []services.Cinema) ([]store.ShowWindow, error) {
	byZone := map[string]*store.ShowWindow{}
	var out []store.ShowWindow
	var order []string
	for _, c := range cinemas {
		if w, ok := byZone[c.TimeZone]; ok {
			w.CinemaIDs = append(w.CinemaIDs, c.ID)
			continue
		}
		loc, d := c.Loc(), date
		if d == "" {
			d = s.TodayIn(loc)
		}
		day, err := time.ParseInLocation(time.DateOnly, d, loc)
		if err != nil {
			return nil, services.Errorf(services.CodeInvalidRequest, "date must be YYYY-MM-DD")
		}
		byZone[c.TimeZone] = &store.ShowWindow{CinemaIDs: []int64{c.ID}, From: day.UTC(), To: day.AddDate(0, 0, 1).UTC()}
		order = append(order, c.TimeZone)
	}
	for _, z := range order {
		w := *byZone[z]
		// a calendar date MySQL's DATETIME cannot hold (before year 1000, after 9999) has
		// no shows: no window, not a query the server refuses
		if w.From.Before(minDateTime) {
			w.From = minDateTime
		}
		if w.To.After(maxDateTime) {
			w.To = maxDateTime
		}
		if w.From.Before(w.To) {
			out = append(out, w)
		}
	}
	return out, nil
}

// The range of MySQL's DATETIME, the type of every stored time.
var (
	minDateTime = time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)
	maxDateTime = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
)

// Between lists the public shows starting in [from, to) with seats left.
func (s *Listing) Between(ctx context.Context, from, to time.Time) ([]*services.Show, error) {
	shows, err := s.catalog.ShowsBetween(ctx, from, to)
	if err != nil {
		return nil, err
	}
	return shows, s.FillSeatsLeft(ctx, shows)
}

// Get returns one public show with zones, prices and seats left.
// Errors: NOT_FOUND (unknown or draft), UNAVAILABLE.
func (s *Listing) Get(ctx context.Context, id int64) (*services.Show, error) {
	cached, err := s.catalog.CachedShow(ctx, id)
	if err != nil {
		return nil, err
	}
	show := cached.CopyAt(s.clock.Now())
	if show.Status == services.ShowDraft {
		return nil, services.Errorf(services.CodeNotFound, "show %d not found", id)
	}
	return show, s.FillSeatsLeft(ctx, []*services.Show{show})
}

// SeatMapVersion grows whenever the show's seat state may have changed (in this process
// or, through the seat events, in another): a cached rendering of the seat map made at
// an equal version is current.
func (s *Listing) SeatMapVersion(id int64) uint64 { return s.seats.Version(id) }

// SeatMap is a show's hall layout with each seat's current state.
type SeatMap struct {
	Show   *services.Show
	Hall   *services.Hall
	States map[int64]string // seat id -> StateFree, StateHeld, StateSold or StateBlocked
	Owners map[int64]int64  // seat id -> user id holding or owning it
	// Partial: States and Owners hold only the seats asked for (SeatMapOf), and Owned
	// is the seats the buyer asked about holds or owns in the whole show.
	Partial bool
	Owned   int
}

// SeatMap returns the show's seat map, loading it into Redis from MySQL when missing.
// Errors: NOT_FOUND, UNAVAILABLE.
func (s *Listing) SeatMap(ctx context.Context, id int64) (*SeatMap, error) {
	show, err := s.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	hall, err := s.catalog.Hall(ctx, show.HallID)
	if err != nil {
		return nil, err
	}
	raw, err := s.seats.States(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, st := range hall.Seats {
		if _, ok := raw[st.ID]; !ok {
			// a field is missing: not loaded, never free (invariant 3); fill it from MySQL
			if err := s.seats.Load(ctx, id); err != nil {
				return nil, err
			}
			if raw, err = s.seats.States(ctx, id); err != nil {
				return nil, err
			}
			break
		}
	}
	m := &SeatMap{Show: show, Hall: hall, States: make(map[int64]string, len(hall.Seats)), Owners: map[int64]int64{}}
	for _, st := range hall.Seats {
		state, _, user := SeatValue(raw[st.ID])
		if !st.Sellable() {
			state = services.StateBlocked
		}
		if state == "" {
			state = services.StateHeld // an unreadable value is never offered as free
		}
		m.States[st.ID] = state
		if user != 0 {
			m.Owners[st.ID] = user
		}
	}
	return m, nil
}

// FillSeatsLeft sets SeatsLeft of each show and zone: from Redis where the seat map is
// loaded, else counted in MySQL (sellable seats minus live order seats).
func (s *Listing) FillSeatsLeft(ctx context.Context, shows []*services.Show) error {
	if len(shows) == 0 {
		return nil
	}
	ids := make([]int64, len(shows))
	for i, sh := range shows {
		ids[i] = sh.ID
	}
	cached, err := s.seats.ZoneFree(ctx, ids)
	if err != nil {
		cached = map[int64]map[string]int{} // browsing still works from MySQL
	}
	var missing []int64
	for _, sh := range shows {
		if _, ok := cached[sh.ID]; !ok {
			missing = append(missing, sh.ID)
		}
	}
	if len(missing) > 0 {
		counted, err := s.countFromDB(ctx, shows, missing)
		if err != nil {
			return err
		}
		for id, z := range counted {
			cached[id] = z
		}
	}
	for _, sh := range shows {
		sh.SeatsLeft = 0
		for i := range sh.Zones {
			sh.Zones[i].SeatsLeft = cached[sh.ID][sh.Zones[i].Code]
			sh.SeatsLeft += sh.Zones[i].SeatsLeft
		}
	}
	return nil
}

func (s *Listing) countFromDB(ctx context.Context, shows []*services.Show, ids []int64) (map[int64]map[string]int, error) {
	// taken: seats of live orders, and house seats no live order has
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	rows, err := store.ShowsTakenByZone(ctx, s.db, ids)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	taken := map[int64]map[string]int{}
	for _, r := range rows {
		if taken[r.ShowID] == nil {
			taken[r.ShowID] = map[string]int{}
		}
		taken[r.ShowID][r.Zone] += r.N
	}
	want := map[int64]bool{}
	for _, id := range ids {
		want[id] = true
	}
	out := map[int64]map[string]int{}
	for _, sh := range shows {
		if !want[sh.ID] {
			continue
		}
		hall, err := s.catalog.Hall(ctx, sh.HallID)
		if err != nil {
			return nil, err
		}
		z := map[string]int{}
		for _, st := range hall.Seats {
			if st.Sellable() {
				z[st.ZoneCode]++
			}
		}
		for code, n := range taken[sh.ID] {
			z[code] -= n
		}
		out[sh.ID] = z
	}
	return out, nil
}

// Load builds a show's seat map from MySQL unless it is loaded (SeatStore.Load).
func (s *Listing) Load(ctx context.Context, showID int64) error { return s.seats.Load(ctx, showID) }

// ZoneFree returns, per loaded show id, its free seats per zone code (SeatStore.ZoneFree).
func (s *Listing) ZoneFree(ctx context.Context, showIDs []int64) (map[int64]map[string]int, error) {
	return s.seats.ZoneFree(ctx, showIDs)
}
