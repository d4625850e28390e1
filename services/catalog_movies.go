package services

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-sql-driver/mysql"
	"github.com/jmoiron/sqlx"
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
	shows        *Shows
	seats        *SeatStore
	audit        *Audit
	clock        Clock
	currency     string
	defaultLimit int
}

// NewCatalogWriter returns the catalog's write side over the stores of shows; currency
// is the 3-letter code of new shows, defaultLimit their purchase limit when none is given.
func NewCatalogWriter(shows *Shows, audit *Audit, currency string, defaultLimit int) *CatalogWriter {
	return &CatalogWriter{db: shows.db, catalog: shows.catalog, shows: shows, seats: shows.seats, audit: audit,
		clock: shows.clock, currency: currency, defaultLimit: defaultLimit}
}

// Movies lists every movie ordered by title. Errors: UNAVAILABLE.
func (w *CatalogWriter) Movies(ctx context.Context) ([]*Movie, error) {
	ctx, cancel := context.WithTimeout(ctx, dbTimeout)
	defer cancel()
	out := []*Movie{}
	if err := w.db.SelectContext(ctx, &out, "SELECT id, title, runtime_min, rating, synopsis FROM movies ORDER BY title, id"); err != nil {
		return nil, unavailable("the database", err)
	}
	return out, nil
}

// CreateMovie stores a movie (title trimmed, 1..MaxMovieTitle characters; runtimeMin
// 1..MaxRuntimeMin minutes) written by actorID, audited as "movie.create", and returns
// it. Errors: INVALID_REQUEST, CONFLICT wrapping ErrDuplicateTitle, UNAVAILABLE.
func (w *CatalogWriter) CreateMovie(ctx context.Context, actorID int64, title string, runtimeMin int) (*Movie, error) {
	m := &Movie{Title: strings.TrimSpace(title), RuntimeMin: runtimeMin}
	if m.Title == "" || !utf8.ValidString(m.Title) || utf8.RuneCountInString(m.Title) > MaxMovieTitle {
		return nil, errf(CodeInvalidRequest, "title must be 1 to %d characters", MaxMovieTitle)
	}
	if runtimeMin < 1 || runtimeMin > MaxRuntimeMin {
		return nil, errf(CodeInvalidRequest, "runtime_min must be a whole number of minutes from 1 to %d", MaxRuntimeMin)
	}
	ctx, cancel := context.WithTimeout(ctx, dbTimeout)
	defer cancel()
	err := inTx(ctx, w.db, func(tx *sqlx.Tx) error {
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
		if duplicateOn(err, movieTitleIndex) {
			return nil, &Error{Code: CodeConflict, Message: "a movie titled " + strconv.Quote(m.Title) + " already exists", Err: ErrDuplicateTitle}
		}
		return nil, asServiceError(err)
	}
	return m, nil
}

// duplicateOn reports whether err is MySQL's duplicate-key error 1062 on the unique key
// named key (MariaDB says "for key 'key'", MySQL 8 "for key 'table.key'").
func duplicateOn(err error, key string) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 1062 &&
		(strings.HasSuffix(me.Message, "'"+key+"'") || strings.HasSuffix(me.Message, "."+key+"'"))
}

// asServiceError returns err as it is when it is an *Error, else as UNAVAILABLE.
func asServiceError(err error) error {
	var e *Error
	if err == nil || errors.As(err, &e) {
		return err
	}
	return unavailable("the database", err)
}
