package catalog

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/store"
)

// ErrDuplicateCinemaName is the cause of the CONFLICT answered for a cinema name in use.
var ErrDuplicateCinemaName = errors.New("services: duplicate cinema name")

// MaxCinemaName is the longest cinema name in characters (the width of cinemas.name).
const MaxCinemaName = 100

// CinemaCacheTTL is how long a process may use the list of cinemas it read (names, time
// zones, currencies): a write drops it at once in the writing process; others see it
// within this time.
const CinemaCacheTTL = 10 * time.Second

// CinemaInput is a cinema as an admin writes it: a name (trimmed, 1..MaxCinemaName
// characters, unique), an IANA time zone ("Europe/London") and an ISO 4217 currency ("GBP").
type CinemaInput struct {
	Name     string `json:"name"`
	TimeZone string `json:"time_zone"`
	Currency string `json:"currency"`
}

// Cinemas lists every cinema by id, the install's first cinema first (cached for
// CinemaCacheTTL; never modify the slice). Errors: UNAVAILABLE.
func (c *Catalog) Cinemas(ctx context.Context) ([]services.Cinema, error) {
	return c.cinemas.Get(ctx, 0)
}

// ForgetCinemas drops the cached list of cinemas: the next read loads it afresh (after
// the table was written outside this process's catalog).
func (c *Catalog) ForgetCinemas() { c.cinemas.Forget(0) }

func (c *Catalog) loadCinemas(ctx context.Context, _ int) ([]services.Cinema, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	cs, err := store.Cinemas(ctx, c.db)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	return cs, nil
}

// Cinema returns one cinema from Cinemas, reading the list afresh once when the cached
// one lacks it (written by another process since). Errors: NOT_FOUND, UNAVAILABLE.
func (c *Catalog) Cinema(ctx context.Context, id int64) (services.Cinema, error) {
	for fresh := false; ; fresh = true {
		cs, err := c.Cinemas(ctx)
		if err != nil {
			return services.Cinema{}, err
		}
		if i := slices.IndexFunc(cs, func(x services.Cinema) bool { return x.ID == id }); i >= 0 {
			return cs[i], nil
		}
		if fresh {
			return services.Cinema{}, services.Errorf(services.CodeNotFound, "cinema %d not found", id)
		}
		c.ForgetCinemas()
	}
}

// FirstCinema returns the install's first cinema (the lowest id): where halls go when
// none is named, and whose zone pages without a show use. Errors: UNAVAILABLE, NOT_FOUND
// (a database that was never migrated).
func (c *Catalog) FirstCinema(ctx context.Context) (services.Cinema, error) {
	cs, err := c.Cinemas(ctx)
	if err != nil {
		return services.Cinema{}, err
	}
	if len(cs) == 0 {
		return services.Cinema{}, services.Errorf(services.CodeNotFound, "no cinema: migrate the database")
	}
	return cs[0], nil
}

// checkCinemaInput trims and checks a cinema's name, zone and currency.
// Errors: INVALID_REQUEST.
func checkCinemaInput(in CinemaInput) (CinemaInput, error) {
	in.Name = strings.TrimSpace(in.Name)
	if in.Name == "" || !utf8.ValidString(in.Name) || utf8.RuneCountInString(in.Name) > MaxCinemaName {
		return in, services.Errorf(services.CodeInvalidRequest, "name must be 1 to %d characters", MaxCinemaName)
	}
	if err := services.CheckText("name", in.Name, services.SingleLine); err != nil {
		return in, err
	}
	in.TimeZone = strings.TrimSpace(in.TimeZone)
	if err := services.CheckTimeZone(in.TimeZone); err != nil {
		return in, err
	}
	in.Currency = strings.TrimSpace(in.Currency)
	if err := services.CheckCurrency(in.Currency); err != nil {
		return in, err
	}
	return in, nil
}

// CreateCinema stores a cinema written by actorID, audited as "cinema.create", and
// returns it. Errors: INVALID_REQUEST (name, unknown zone or currency), CONFLICT wrapping
// ErrDuplicateCinemaName, UNAVAILABLE.
func (w *CatalogWriter) CreateCinema(ctx context.Context, actorID int64, in CinemaInput) (services.Cinema, error) {
	in, err := checkCinemaInput(in)
	if err != nil {
		return services.Cinema{}, err
	}
	var id int64
	err = store.InTx(ctx, w.db, func(tx *sqlx.Tx) error {
		var err error
		if id, err = store.InsertCinema(ctx, tx, in.Name, in.TimeZone, in.Currency, w.clock.Now().UTC()); err != nil {
			return err
		}
		return w.audit.Record(ctx, tx, actorID, "cinema.create", "cinema", strconv.FormatInt(id, 10), nil, in)
	})
	if err != nil {
		return services.Cinema{}, cinemaWriteError(err, in.Name)
	}
	w.catalog.ForgetCinemas()
	return w.catalog.Cinema(ctx, id)
}

// UpdateCinema changes a cinema's name, time zone or currency, audited as
// "cinema.update" with before and after. A new zone moves the local time every page
// shows for its shows (the instants stay); a new currency prices shows created from then
// on (a show keeps the currency it was priced in); a new zone also drops the cinema's
// sales rollup, whose days were cut in the old one (DESIGN.md "Sales rollup"). Errors:
// INVALID_REQUEST, NOT_FOUND, CONFLICT wrapping ErrDuplicateCinemaName, UNAVAILABLE.
func (w *CatalogWriter) UpdateCinema(ctx context.Context, actorID, id int64, in CinemaInput) (services.Cinema, error) {
	in, err := checkCinemaInput(in)
	if err != nil {
		return services.Cinema{}, err
	}
	err = store.InTx(ctx, w.db, func(tx *sqlx.Tx) error {
		before, err := store.CinemaByID(ctx, tx, id)
		if err != nil {
			return err
		}
		if err := store.UpdateCinema(ctx, tx, id, in.Name, in.TimeZone, in.Currency); err != nil {
			return err
		}
		if before.TimeZone != in.TimeZone {
			if err := store.ForgetCinemaSalesRollup(ctx, tx, id); err != nil {
				return err
			}
		}
		was := CinemaInput{Name: before.Name, TimeZone: before.TimeZone, Currency: before.Currency}
		return w.audit.Record(ctx, tx, actorID, "cinema.update", "cinema", strconv.FormatInt(id, 10), was, in)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return services.Cinema{}, services.Errorf(services.CodeNotFound, "cinema %d not found", id)
	}
	if err != nil {
		return services.Cinema{}, cinemaWriteError(err, in.Name)
	}
	w.catalog.ForgetCinemas()
	return w.catalog.Cinema(ctx, id)
}

func cinemaWriteError(err error, name string) error {
	if store.DuplicateOn(err, store.CinemaNameIndex) {
		return &services.Error{Code: services.CodeConflict, Message: "a cinema named " + strconv.Quote(name) + " already exists", Err: ErrDuplicateCinemaName}
	}
	return asServiceError(err)
}

// CinemaCounts is what a cinema holds: its halls and the staff accounts limited to it
// (staff without limits work for every cinema and are not counted).
type CinemaCounts struct {
	Halls, Staff int
}

// CinemaCounts returns each cinema's counts by cinema id (a cinema with neither halls
// nor limited staff is absent: zero counts). Errors: UNAVAILABLE.
func (w *CatalogWriter) CinemaCounts(ctx context.Context) (map[int64]CinemaCounts, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	halls, err := store.CinemaHallCounts(ctx, w.db)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	staff, err := store.CinemaStaffCounts(ctx, w.db)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	out := make(map[int64]CinemaCounts, len(halls)+len(staff))
	for id, n := range halls {
		c := out[id]
		c.Halls = n
		out[id] = c
	}
	for id, n := range staff {
		c := out[id]
		c.Staff = n
		out[id] = c
	}
	return out, nil
}
