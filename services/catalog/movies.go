package catalog

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/store"
)

// ErrDuplicateTitle is the cause of the CONFLICT answered for a movie title already in
// use (the unique key uq_movies_title; titles compare case-insensitively).
var ErrDuplicateTitle = errors.New("services: duplicate movie title")

// Limits of a movie as staff enter it.
const (
	MaxMovieTitle   = 200 // characters, the width of movies.title
	MaxRuntimeMin   = 600 // minutes
	movieTitleIndex = "uq_movies_title"
)

// CatalogWriter is the catalog's write side (movies, shows, sale control), used by the
// admin API, the console and tests. Every write is audited in its own transaction
// (invariant 11) and a changed show is dropped from the order path's cache.
type CatalogWriter struct {
	db           *sqlx.DB
	catalog      *Catalog
	maps         SeatMaps
	audit        *audit.Audit
	clock        services.Clock
	zone         *time.Location
	currency     string
	defaultLimit int
}

// SeatMaps is what the catalog's writes need of the seat maps in Redis; the seat
// package's Shows provides it. A writer built with nil SeatMaps (the demo seed) must not
// update halls or read seat counts.
type SeatMaps interface {
	// Load builds a show's seat map from MySQL unless it is loaded. Errors: UNAVAILABLE.
	Load(ctx context.Context, showID int64) error
	// ZoneFree returns, per loaded show id, its free seats per zone code.
	ZoneFree(ctx context.Context, showIDs []int64) (map[int64]map[string]int, error)
	// FillSeatsLeft sets the seats-left figures of shows from their seat maps.
	FillSeatsLeft(ctx context.Context, shows []*services.Show) error
	// RefreshHall brings the loaded seat maps of the hall's future shows in line with
	// its layout in MySQL, or leaves that to the next reconciliation run (logged).
	RefreshHall(ctx context.Context, hallID int64)
}

// WriterConfig holds the settings of the catalog's write side: Currency is the 3-letter
// code of new shows, DefaultLimit their purchase limit when none is given, Zone the
// cinema's time zone (the wall clock staff type show times in).
type WriterConfig struct {
	Currency     string
	DefaultLimit int
	Zone         *time.Location
}

// NewCatalogWriter returns the catalog's write side over db: it drops changed shows and
// halls from catalog's cache, keeps maps in line, audits into audit and reads time from
// clock.
func NewCatalogWriter(db *sqlx.DB, catalog *Catalog, maps SeatMaps, audit *audit.Audit, clock services.Clock, cfg WriterConfig) *CatalogWriter {
	if cfg.Zone == nil {
		cfg.Zone = time.UTC
	}
	return &CatalogWriter{db: db, catalog: catalog, maps: maps, audit: audit, clock: clock, zone: cfg.Zone,
		currency: cfg.Currency, defaultLimit: cfg.DefaultLimit}
}

// Movies lists every movie ordered by title. Errors: UNAVAILABLE.
func (w *CatalogWriter) Movies(ctx context.Context) ([]*services.Movie, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	out := []*services.Movie{}
	if err := w.db.SelectContext(ctx, &out, "SELECT id, title, runtime_min, rating, synopsis FROM movies ORDER BY title, id"); err != nil {
		return nil, store.Unavailable("the database", err)
	}
	return out, nil
}

// CreateMovie stores a movie (title trimmed, 1..MaxMovieTitle characters; runtimeMin
// 1..MaxRuntimeMin minutes) written by actorID, audited as "movie.create", and returns
// it. Errors: INVALID_REQUEST, CONFLICT wrapping ErrDuplicateTitle, UNAVAILABLE.
func (w *CatalogWriter) CreateMovie(ctx context.Context, actorID int64, title string, runtimeMin int) (*services.Movie, error) {
	m := &services.Movie{Title: strings.TrimSpace(title), RuntimeMin: runtimeMin}
	if m.Title == "" || !utf8.ValidString(m.Title) || utf8.RuneCountInString(m.Title) > MaxMovieTitle {
		return nil, services.Errorf(services.CodeInvalidRequest, "title must be 1 to %d characters", MaxMovieTitle)
	}
	if runtimeMin < 1 || runtimeMin > MaxRuntimeMin {
		return nil, services.Errorf(services.CodeInvalidRequest, "runtime_min must be a whole number of minutes from 1 to %d", MaxRuntimeMin)
	}
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	err := store.InTx(ctx, w.db, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, "INSERT INTO movies (title, runtime_min, rating, synopsis) VALUES (?, ?, '', '')", m.Title, m.RuntimeMin)
		if err != nil {
			return err
		}
		if m.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		return w.audit.Record(ctx, tx, actorID, "movie.create", "movie", strconv.FormatInt(m.ID, 10), nil, m)
	})
	if err != nil {
		if store.DuplicateOn(err, movieTitleIndex) {
			return nil, &services.Error{Code: services.CodeConflict, Message: "a movie titled " + strconv.Quote(m.Title) + " already exists", Err: ErrDuplicateTitle}
		}
		return nil, asServiceError(err)
	}
	return m, nil
}

// asServiceError returns err as it is when it is an *Error, else as UNAVAILABLE.
func asServiceError(err error) error {
	var e *services.Error
	if err == nil || errors.As(err, &e) {
		return err
	}
	return store.Unavailable("the database", err)
}
