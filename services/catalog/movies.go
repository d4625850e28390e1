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

// ErrDuplicateTitle is the cause of the CONFLICT answered for a movie title already in
// use (the unique key uq_movies_title; titles compare case-insensitively).
var ErrDuplicateTitle = errors.New("services: duplicate movie title")

// Limits of a movie as staff enter it.
const (
	MaxMovieTitle   = 200 // characters, the width of movies.title
	MaxRuntimeMin   = 600 // minutes
	movieTitleIndex = "uq_movies_title"
)

// Movies lists every movie ordered by title. Errors: UNAVAILABLE.
func (w *CatalogWriter) Movies(ctx context.Context) ([]*services.Movie, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	out, err := store.MovieList(ctx, w.db)
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	return out, nil
}

// CreateMovie stores a movie (title trimmed, 1..MaxMovieTitle characters, one line
// as services.CheckText allows; runtimeMin
// 1..MaxRuntimeMin minutes) written by actorID, audited as "movie.create", and returns
// it. Errors: INVALID_REQUEST, CONFLICT wrapping ErrDuplicateTitle, UNAVAILABLE.
func (w *CatalogWriter) CreateMovie(ctx context.Context, actorID int64, title string, runtimeMin int) (*services.Movie, error) {
	m := &services.Movie{Title: strings.TrimSpace(title), RuntimeMin: runtimeMin}
	if m.Title == "" || !utf8.ValidString(m.Title) || utf8.RuneCountInString(m.Title) > MaxMovieTitle {
		return nil, services.Errorf(services.CodeInvalidRequest, "title must be 1 to %d characters", MaxMovieTitle)
	}
	if err := services.CheckText("title", m.Title, services.SingleLine); err != nil {
		return nil, err
	}
	if runtimeMin < 1 || runtimeMin > MaxRuntimeMin {
		return nil, services.Errorf(services.CodeInvalidRequest, "runtime_min must be a whole number of minutes from 1 to %d", MaxRuntimeMin)
	}
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	err := store.InTx(ctx, w.db, func(tx *sqlx.Tx) error {
		var err error
		if m.ID, err = store.InsertMovie(ctx, tx, services.Movie{Title: m.Title, RuntimeMin: m.RuntimeMin}); err != nil {
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
