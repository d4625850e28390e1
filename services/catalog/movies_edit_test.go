package catalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/catalog"
)

// TestCatalogWriter_UpdateMovie proves editing a movie: title and runtime change and are
// audited with before and after; bad input, a title in use and a runtime change while
// the movie has upcoming shows are refused (naming them) and change nothing.
func TestCatalogWriter_UpdateMovie(t *testing.T) {
	e, w, staff, m := newCatalogWriterEnv(t)
	ctx := context.Background()
	other, err := w.CreateMovie(ctx, staff, "Other Movie", 90)
	if err != nil {
		t.Fatal(err)
	}
	got, err := w.UpdateMovie(ctx, staff, m.ID, "  Writer Test Movie (restored) ", 110)
	if err != nil || got.Title != "Writer Test Movie (restored)" || got.RuntimeMin != 110 || got.Retired() {
		t.Fatalf("update: %+v %v", got, err)
	}
	entries := auditRows(e, "movie", m.ID)
	if len(entries) != 2 || entries[0].Action != "movie.update" || entries[0].ActorID == nil || *entries[0].ActorID != staff {
		t.Fatalf("audit: %+v", entries)
	}
	var before, after catalog.MovieAudit
	if json.Unmarshal(entries[0].Before, &before) != nil || json.Unmarshal(entries[0].After, &after) != nil ||
		before.Title != "Writer Test Movie" || before.RuntimeMin != 100 || after.Title != "Writer Test Movie (restored)" || after.RuntimeMin != 110 {
		t.Errorf("audited %s -> %s", entries[0].Before, entries[0].After)
	}
	if _, err := w.UpdateMovie(ctx, staff, m.ID, "Writer Test Movie (restored)", 110); err != nil {
		t.Fatal(err)
	}
	if n := len(auditRows(e, "movie", m.ID)); n != 2 {
		t.Errorf("an unchanged movie was audited again: %d entries", n)
	}

	show, err := w.CreateShow(ctx, staff, validShow(e, m, e.Clock.Now().Add(50*time.Hour).Truncate(time.Hour)))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		id      int64
		title   string
		runtime int
		code    string
		says    string
	}{
		{"blank title", m.ID, " ", 110, services.CodeInvalidRequest, "title"},
		{"runtime zero", m.ID, "X", 0, services.CodeInvalidRequest, "runtime"},
		{"runtime too long", m.ID, "X", catalog.MaxRuntimeMin + 1, services.CodeInvalidRequest, "runtime"},
		{"title of another movie", m.ID, "other movie", 110, services.CodeConflict, "already exists"},
		{"runtime with an upcoming show", m.ID, "Writer Test Movie (restored)", 150, services.CodeConflict, "show " + strconv.FormatInt(show.ID, 10)},
		{"unknown movie", 987654, "Nobody", 90, services.CodeNotFound, "not found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := w.UpdateMovie(ctx, staff, c.id, c.title, c.runtime)
			if services.ErrorCode(err) != c.code || !strings.Contains(err.Error(), c.says) {
				t.Fatalf("got %v, want %s saying %q", err, c.code, c.says)
			}
			if c.code == services.CodeConflict && c.says == "already exists" && !errors.Is(err, catalog.ErrDuplicateTitle) {
				t.Errorf("not ErrDuplicateTitle: %v", err)
			}
			now, _ := w.MovieSummary(ctx, m.ID)
			if now.Title != "Writer Test Movie (restored)" || now.RuntimeMin != 110 {
				t.Errorf("a refused update changed the movie: %+v", now)
			}
		})
	}
	t.Run("the title may change while shows are upcoming", func(t *testing.T) {
		if got, err := w.UpdateMovie(ctx, staff, m.ID, "Writer Test Movie", 110); err != nil || got.Title != "Writer Test Movie" || got.UpcomingShows != 1 {
			t.Fatalf("%+v %v", got, err)
		}
	})
	t.Run("the runtime may change once the upcoming show is cancelled", func(t *testing.T) {
		e.Exec("UPDATE shows SET status = 'cancelled' WHERE id = ?", show.ID)
		if got, err := w.UpdateMovie(ctx, staff, m.ID, "Writer Test Movie", 120); err != nil || got.RuntimeMin != 120 || got.UpcomingShows != 0 {
			t.Fatalf("%+v %v", got, err)
		}
	})
	if o, _ := w.MovieSummary(ctx, other.ID); o.Title != "Other Movie" || o.RuntimeMin != 90 {
		t.Errorf("the other movie changed: %+v", o)
	}
}

// TestCatalogWriter_RetireMovie proves retiring: a retired movie is refused for new
// shows (also by the repeat), its existing shows stay as they are, it lists after the
// current ones, and un-retiring offers it again; each change is audited once.
func TestCatalogWriter_RetireMovie(t *testing.T) {
	e, w, staff, m := newCatalogWriterEnv(t)
	ctx := context.Background()
	starts := e.Clock.Now().Add(72 * time.Hour).Truncate(time.Hour)
	existing, err := w.CreateShow(ctx, staff, validShow(e, m, starts))
	if err != nil {
		t.Fatal(err)
	}
	got, err := w.RetireMovie(ctx, staff, m.ID)
	if err != nil || !got.Retired() || !got.RetiredAt.Equal(e.Clock.Now()) || got.UpcomingShows != 1 {
		t.Fatalf("retire: %+v %v", got, err)
	}
	if _, err := w.RetireMovie(ctx, staff, m.ID); err != nil {
		t.Fatal(err)
	}
	entries := auditRows(e, "movie", m.ID)
	if len(entries) != 2 || entries[0].Action != "movie.retire" {
		t.Fatalf("audit after retiring twice: %+v", entries)
	}
	var after catalog.MovieAudit
	if json.Unmarshal(entries[0].After, &after) != nil || after.RetiredAt == nil {
		t.Errorf("audited after %s", entries[0].After)
	}
	shows := e.CountRows("shows")
	if _, err := w.CreateShow(ctx, staff, validShow(e, m, starts.Add(24*time.Hour))); services.ErrorCode(err) != services.CodeConflict || !strings.Contains(err.Error(), "retired") {
		t.Fatalf("a show of a retired movie: %v", err)
	}
	if _, err := w.CreateDaily(ctx, staff, localShowOf(m, e, "2026-12-10", 2)); services.ErrorCode(err) != services.CodeConflict {
		t.Fatalf("a repeat of a retired movie: %v", err)
	}
	if n := e.CountRows("shows"); n != shows {
		t.Errorf("shows of a retired movie were stored: %d -> %d", shows, n)
	}
	if s, err := w.Show(ctx, existing.ID); err != nil || s.Status != services.ShowOnSale {
		t.Errorf("the existing show of a retired movie: %+v %v", s, err)
	}
	list, err := w.MovieSummaries(ctx)
	if err != nil || len(list) < 2 || list[len(list)-1].ID != m.ID {
		t.Errorf("a retired movie does not list last: %+v %v", list, err)
	}
	if got, err := w.UnretireMovie(ctx, staff, m.ID); err != nil || got.Retired() {
		t.Fatalf("unretire: %+v %v", got, err)
	}
	if entries := auditRows(e, "movie", m.ID); len(entries) != 3 || entries[0].Action != "movie.unretire" {
		t.Errorf("audit after un-retiring: %+v", entries)
	}
	if _, err := w.CreateShow(ctx, staff, validShow(e, m, starts.Add(24*time.Hour))); err != nil {
		t.Errorf("a show of an un-retired movie: %v", err)
	}
	if _, err := w.RetireMovie(ctx, staff, 987654); services.ErrorCode(err) != services.CodeNotFound {
		t.Errorf("retire an unknown movie: %v", err)
	}
}
