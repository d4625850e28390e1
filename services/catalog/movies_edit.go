package catalog

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/store"
)

// MovieSummary is a movie as the console lists it: RetiredAt (UTC) is set while the
// movie is retired, UpcomingShows counts its shows that are not cancelled and start
// after now.
type MovieSummary struct {
	services.Movie
	RetiredAt     *time.Time `db:"retired_at"`
	UpcomingShows int        `db:"upcoming_shows"`
}

// Retired reports whether the movie is retired (not offered for new shows).
func (m *MovieSummary) Retired() bool { return m.RetiredAt != nil }

// MovieAudit is what the audit log keeps of a movie before and after a write.
type MovieAudit struct {
	Title      string     `json:"title"`
	RuntimeMin int        `json:"runtime_min"`
	RetiredAt  *time.Time `json:"retired_at"`
}

func movieAuditOf(m *MovieSummary) *MovieAudit {
	return &MovieAudit{Title: m.Title, RuntimeMin: m.RuntimeMin, RetiredAt: m.RetiredAt}
}

// MovieSummaries lists every movie, current ones first, each group by title, with its
// number of upcoming shows. Errors: UNAVAILABLE.
func (w *CatalogWriter) MovieSummaries(ctx context.Context) ([]*MovieSummary, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	rows, err := store.MovieRows(ctx, w.db, w.clock.Now())
	if err != nil {
		return nil, store.Unavailable("the database", err)
	}
	out := make([]*MovieSummary, len(rows))
	for i, r := range rows {
		out[i] = (*MovieSummary)(r)
	}
	return out, nil
}

// MovieSummary returns one movie with its number of upcoming shows.
// Errors: NOT_FOUND, UNAVAILABLE.
func (w *CatalogWriter) MovieSummary(ctx context.Context, id int64) (*MovieSummary, error) {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	m, err := store.MovieRowByID(ctx, w.db, id, w.clock.Now())
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, services.Errorf(services.CodeNotFound, "movie %d not found", id)
		}
		return nil, store.Unavailable("the database", err)
	}
	return (*MovieSummary)(m), nil
}

// UpdateMovie sets a movie's title (trimmed, 1..MaxMovieTitle characters, one line as
// services.CheckText allows) and runtime
// (1..MaxRuntimeMin minutes) for actorID, audited as "movie.update", and returns it. The
// runtime cannot change while the movie has upcoming shows (their end times and the
// halls' free time depend on it): that is CONFLICT naming them. An unchanged movie
// writes nothing. Errors: INVALID_REQUEST, NOT_FOUND, CONFLICT (runtime with upcoming
// shows, or the title in use, wrapping ErrDuplicateTitle), UNAVAILABLE.
func (w *CatalogWriter) UpdateMovie(ctx context.Context, actorID, id int64, title string, runtimeMin int) (*MovieSummary, error) {
	title = strings.TrimSpace(title)
	if title == "" || !utf8.ValidString(title) || utf8.RuneCountInString(title) > MaxMovieTitle {
		return nil, services.Errorf(services.CodeInvalidRequest, "title must be 1 to %d characters", MaxMovieTitle)
	}
	if err := services.CheckText("title", title, services.SingleLine); err != nil {
		return nil, err
	}
	if runtimeMin < 1 || runtimeMin > MaxRuntimeMin {
		return nil, services.Errorf(services.CodeInvalidRequest, "runtime_min must be a whole number of minutes from 1 to %d", MaxRuntimeMin)
	}
	err := w.writeMovie(ctx, actorID, id, func(tx *sqlx.Tx, m *MovieSummary) (string, error) {
		if m.Title == title && m.RuntimeMin == runtimeMin {
			return "", nil
		}
		if m.RuntimeMin != runtimeMin {
			if err := w.noUpcomingShows(ctx, tx, m); err != nil {
				return "", err
			}
		}
		m.Title, m.RuntimeMin = title, runtimeMin
		return "movie.update", store.SetMovieTitleRuntime(ctx, tx, id, title, runtimeMin)
	})
	if store.DuplicateOn(err, movieTitleIndex) {
		return nil, &services.Error{Code: services.CodeConflict, Message: "a movie titled " + strconv.Quote(title) + " already exists", Err: ErrDuplicateTitle}
	}
	if err != nil {
		return nil, asServiceError(err)
	}
	return w.MovieSummary(ctx, id)
}

// RetireMovie retires a movie for actorID (retired_at = now), audited as
// "movie.retire": it is no longer offered for new shows; its existing shows are
// unaffected. A retired movie stays as it is. Errors: NOT_FOUND, UNAVAILABLE.
func (w *CatalogWriter) RetireMovie(ctx context.Context, actorID, id int64) (*MovieSummary, error) {
	return w.setRetired(ctx, actorID, id, true)
}

// UnretireMovie offers a retired movie for new shows again, audited as
// "movie.unretire". A current movie stays as it is. Errors: NOT_FOUND, UNAVAILABLE.
func (w *CatalogWriter) UnretireMovie(ctx context.Context, actorID, id int64) (*MovieSummary, error) {
	return w.setRetired(ctx, actorID, id, false)
}

func (w *CatalogWriter) setRetired(ctx context.Context, actorID, id int64, retire bool) (*MovieSummary, error) {
	err := w.writeMovie(ctx, actorID, id, func(tx *sqlx.Tx, m *MovieSummary) (string, error) {
		if m.Retired() == retire {
			return "", nil
		}
		action := "movie.unretire"
		m.RetiredAt = nil
		if retire {
			at := w.clock.Now().UTC().Truncate(time.Microsecond)
			action, m.RetiredAt = "movie.retire", &at
		}
		return action, store.SetMovieRetiredAt(ctx, tx, id, m.RetiredAt)
	})
	if err != nil {
		return nil, asServiceError(err)
	}
	return w.MovieSummary(ctx, id)
}

// writeMovie locks movie id in a transaction and lets change edit it (and write its
// row); change returns the audit action, or "" to write nothing. The entry is audited
// with the movie before and after. Errors: those of change, NOT_FOUND, the database's.
func (w *CatalogWriter) writeMovie(ctx context.Context, actorID, id int64, change func(tx *sqlx.Tx, m *MovieSummary) (string, error)) error {
	ctx, cancel := context.WithTimeout(ctx, store.DBTimeout)
	defer cancel()
	return store.InTx(ctx, w.db, func(tx *sqlx.Tx) error {
		row, err := store.LockMovie(ctx, tx, id)
		m := (*MovieSummary)(row)
		if errors.Is(err, sql.ErrNoRows) {
			return services.Errorf(services.CodeNotFound, "movie %d not found", id)
		}
		if err != nil {
			return err
		}
		before := movieAuditOf(m)
		action, err := change(tx, m)
		if err != nil || action == "" {
			return err
		}
		return w.audit.Record(ctx, tx, actorID, action, "movie", strconv.FormatInt(id, 10), before, movieAuditOf(m))
	})
}

// maxNamedShows is how many upcoming shows a refusal names.
const maxNamedShows = 5

// noUpcomingShows refuses (CONFLICT) when movie m has shows that are not cancelled and
// start after now, naming up to maxNamedShows of them with their local start.
func (w *CatalogWriter) noUpcomingShows(ctx context.Context, tx *sqlx.Tx, m *MovieSummary) error {
	rows, err := store.MovieUpcomingShows(ctx, tx, m.ID, w.clock.Now())
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	names := make([]string, 0, maxNamedShows)
	for i, r := range rows {
		if i == maxNamedShows {
			names = append(names, "and "+strconv.Itoa(len(rows)-i)+" more")
			break
		}
		names = append(names, "show "+strconv.FormatInt(r.ID, 10)+" ("+r.HallName+", "+r.StartsAt.In(w.zone).Format("2006-01-02 15:04")+")")
	}
	return services.Errorf(services.CodeConflict, "the runtime of %q cannot change while it has upcoming shows: %s; cancel them first or create a new movie",
		m.Title, strings.Join(names, ", "))
}

// movieOffered refuses (CONFLICT) a new show of a retired movie; NOT_FOUND for an
// unknown one. It share-locks the movie row until tx ends, so the movie's runtime
// cannot change under a show being created (UpdateMovie locks the row to write).
func movieOffered(ctx context.Context, tx *sqlx.Tx, movieID int64) error {
	m, err := store.ShareLockMovieOffer(ctx, tx, movieID)
	if errors.Is(err, sql.ErrNoRows) {
		return services.Errorf(services.CodeNotFound, "movie %d not found", movieID)
	}
	if err != nil {
		return err
	}
	if m.RetiredAt != nil {
		return services.Errorf(services.CodeConflict, "the movie %q is retired; un-retire it to schedule new shows", m.Title)
	}
	return nil
}
