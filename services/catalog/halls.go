package catalog

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/store"
)

// ErrDuplicateHallName is the cause of the CONFLICT answered for a hall name already in
// use in its cinema (the unique key uq_halls_cinema_name).
var ErrDuplicateHallName = errors.New("services: duplicate hall name")

// MaxHallName is the longest hall name in characters (the width of halls.name).
const (
	MaxHallName   = 100
	hallNameIndex = "uq_halls_cinema_name"
)

// HallInput is a hall as staff write it: its cinema (CreateHall only; 0: the install's
// first cinema), a name (trimmed, 1..MaxHallName characters, unique in the cinema), its
// layout text (ParseLayout) and the direction its seat numbers run.
type HallInput struct {
	CinemaID  int64
	Name      string
	Layout    string
	Numbering Numbering
	// Prices (UpdateHall only) price the zones the new layout uses for the hall's shows
	// that have not started and have no price for them; shows that have one keep it.
	Prices []ZonePrice
}

// HallLayout is a hall with its layout as text for the editor: Layout and Numbering are
// FormatLayout's; LayoutErr says why a hall made some other way has no layout text
// (Layout is then empty).
type HallLayout struct {
	*services.Hall
	Layout    string
	Numbering Numbering
	LayoutErr string
}

// HallAudit is what the audit log keeps of a hall before and after a write.
type HallAudit struct {
	Name      string         `json:"name"`
	Rows      int            `json:"rows"`
	Cols      int            `json:"cols"`
	Numbering Numbering      `json:"numbering"`
	Layout    string         `json:"layout"`
	Seats     map[string]int `json:"seats"` // sellable seats per zone code
	Blocked   int            `json:"blocked"`
	// Prices and PricedShows: the zone prices (code -> minor units) an update gave the
	// shows that had none
	Prices      map[string]int64 `json:"prices,omitempty"`
	PricedShows []int64          `json:"priced_shows,omitempty"`
}

func hallAuditOf(name string, l *Layout) *HallAudit {
	text, num, _ := FormatLayout(l.Hall(name))
	seats, blocked := l.ZoneCounts()
	return &HallAudit{Name: name, Rows: l.Rows, Cols: l.Cols, Numbering: num, Layout: text, Seats: seats, Blocked: blocked}
}

// ForgetHall drops this process's cached copy of a hall layout.
func (c *Catalog) ForgetHall(id int64) { c.halls.Forget(id) }

// HallChanged drops the cached copy of hall id after staff changed it, here and, with
// HallChanges, in every other process.
func (c *Catalog) HallChanged(ctx context.Context, id int64) {
	c.halls.Forget(id)
	if c.announce != nil {
		c.announce(ctx, id)
	}
}

// HallLayouts lists the halls of the cinemas in ctx's scope (services.CinemaScopeOf)
// ordered by name with their zones and seats, read afresh. Errors: UNAVAILABLE.
func (w *CatalogWriter) HallLayouts(ctx context.Context) ([]*services.Hall, error) {
	qctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	ids, err := store.HallIDs(qctx, w.db)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	out := make([]*services.Hall, 0, len(ids))
	for _, id := range ids {
		h, err := w.catalog.loadHall(ctx, id)
		if err != nil {
			return nil, err
		}
		if !services.CinemaScopeOf(ctx).Allows(h.CinemaID) {
			continue
		}
		out = append(out, h)
	}
	return out, nil
}

// Hall reads one hall afresh with its layout text. Errors: NOT_FOUND, UNAVAILABLE.
func (w *CatalogWriter) Hall(ctx context.Context, id int64) (*HallLayout, error) {
	h, err := w.catalog.loadHall(ctx, id)
	if err != nil {
		return nil, err
	}
	out := &HallLayout{Hall: h}
	if out.Layout, out.Numbering, err = FormatLayout(h); err != nil {
		out.LayoutErr = err.Error()
	}
	return out, nil
}

// checkHallInput trims and checks the name (one line, services.CheckText) and parses
// the layout (ParseLayout refuses every character but the layout's, controls included).
// Errors: INVALID_REQUEST (the layout's problems name line and column).
func checkHallInput(in HallInput) (string, *Layout, error) {
	name := strings.TrimSpace(in.Name)
	if name == "" || !utf8.ValidString(name) || utf8.RuneCountInString(name) > MaxHallName {
		return "", nil, services.Errorf(services.CodeInvalidRequest, "name must be 1 to %d characters", MaxHallName)
	}
	if err := services.CheckText("name", name, services.SingleLine); err != nil {
		return "", nil, err
	}
	l, err := ParseLayout(in.Layout, in.Numbering)
	if err != nil {
		return "", nil, &services.Error{Code: services.CodeInvalidRequest, Message: "layout: " + err.Error(), Err: err}
	}
	return name, l, nil
}

// CreateHall stores a hall of a cinema from its layout, written by actorID, with the
// zones its seats use, audited as "hall.create", and returns it. Errors: INVALID_REQUEST
// (name, or the layout's problems naming line and column), NOT_FOUND (cinema), CONFLICT
// wrapping ErrDuplicateHallName, UNAVAILABLE.
func (w *CatalogWriter) CreateHall(ctx context.Context, actorID int64, in HallInput) (*HallLayout, error) {
	name, l, err := checkHallInput(in)
	if err != nil {
		return nil, err
	}
	cinema, err := w.hallCinema(ctx, in.CinemaID)
	if err != nil {
		return nil, err
	}
	var id int64
	tctx, cancel := context.WithTimeout(ctx, hallTxTimeout(len(l.Seats)))
	defer cancel()
	err = store.InTx(tctx, w.db, func(tx *sqlx.Tx) error {
		var err error
		if id, err = store.InsertHall(tctx, tx, cinema.ID, name, l.Rows, l.Cols); err != nil {
			return err
		}
		zones, err := ensureZones(tctx, tx, id, l)
		if err != nil {
			return err
		}
		if err := insertSeats(tctx, tx, id, zones, l.Seats); err != nil {
			return err
		}
		return w.audit.Record(tctx, tx, actorID, "hall.create", "hall", strconv.FormatInt(id, 10), nil, hallAuditOf(name, l))
	})
	if err != nil {
		return nil, hallWriteError(err, name)
	}
	return w.Hall(ctx, id)
}

// hallCinema returns the cinema a new hall goes in: id, or when id is 0 the install's
// first cinema for staff who may use it (services.CinemaScopeOf), else the one cinema of
// staff limited to exactly one. Errors: INVALID_REQUEST (id 0 for staff limited to
// several cinemas, none of them the first: they name one), FORBIDDEN (a cinema outside
// the scope), NOT_FOUND, UNAVAILABLE.
func (w *CatalogWriter) hallCinema(ctx context.Context, id int64) (services.Cinema, error) {
	scope := services.CinemaScopeOf(ctx)
	if id == 0 {
		first, err := w.catalog.FirstCinema(ctx)
		if err != nil || scope.Allows(first.ID) {
			return first, err
		}
		if len(scope.IDs) != 1 {
			return services.Cinema{}, services.Errorf(services.CodeInvalidRequest, "cinema_id is required: your account works for several cinemas, name the hall's")
		}
		id = scope.IDs[0]
	}
	if err := scope.Check(id); err != nil {
		return services.Cinema{}, err
	}
	return w.catalog.Cinema(ctx, id)
}

func hallWriteError(err error, name string) error {
	if store.DuplicateOn(err, hallNameIndex) {
		return &services.Error{Code: services.CodeConflict, Message: "a hall named " + strconv.Quote(name) + " already exists in this cinema", Err: ErrDuplicateHallName}
	}
	return asServiceError(err)
}

// ensureZones creates the zones l uses that hall lacks and returns zone code -> id of
// every zone of the hall.
func ensureZones(ctx context.Context, tx *sqlx.Tx, hallID int64, l *Layout) (map[string]int64, error) {
	used := map[string]bool{}
	for _, s := range l.Seats {
		used[s.Zone] = true
	}
	for _, z := range LayoutZones {
		if used[z.Code] {
			if err := store.EnsureZone(ctx, tx, hallID, z.Code, z.Name); err != nil {
				return nil, err
			}
		}
	}
	rows, err := store.HallZoneCodes(ctx, tx, hallID)
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(rows))
	for _, r := range rows {
		out[r.Code] = r.ID
	}
	return out, nil
}

// insertSeats inserts seats of the hall, maxSeatRows to a statement.
func insertSeats(ctx context.Context, tx *sqlx.Tx, hallID int64, zones map[string]int64, seats []LayoutSeat) error {
	return inChunks(seats, maxSeatRows, func(batch []LayoutSeat) error {
		rows := make([]store.NewSeat, len(batch))
		for i, s := range batch {
			rows[i] = store.NewSeat{HallID: hallID, ZoneID: zones[s.Zone], Row: s.Row, Col: s.Col, Label: s.Label, Kind: s.Kind}
		}
		return store.InsertSeats(ctx, tx, rows)
	})
}
