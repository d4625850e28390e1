package catalog_test

import (
	"context"
	"io"
	"log/slog"
	"strconv"
	"testing"
	"time"

	"seatflow/services/catalog"
)

// TestHallChanges_EveryProcessDropsItsCopy: two processes' catalogs (this one, whose
// writer edits the hall, and another that read the hall before) hear the edit on the
// hall-changes channel; the other's next read has the new layout at once, not when its
// copy's minute runs out. (The 10 s wait only bounds a hang; without the channel the
// old copy would last a minute.)
func TestHallChanges_EveryProcessDropsItsCopy(t *testing.T) {
	e, w, staff, _ := newCatalogWriterEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	prefix := "sfhc" + strconv.FormatInt(time.Now().UnixNano(), 36)
	other := catalog.NewCatalog(e.DB)
	for _, c := range []*catalog.Catalog{e.Catalog, other} {
		go catalog.NewHallChanges(e.RDB, prefix, c, log).Run(ctx)
	}
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		n, err := e.RDB.PubSubNumSub(ctx, prefix+":halls:changed").Result()
		if err != nil {
			t.Fatal(err)
		}
		if n[prefix+":halls:changed"] == 2 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("subscribers of the hall-changes channel: %v, want 2", n)
		}
	}

	h, err := w.CreateHall(ctx, staff, catalog.HallInput{Name: "Shared", Layout: "SSSS\nSSSS"})
	if err != nil {
		t.Fatal(err)
	}
	before, err := other.Hall(ctx, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(before.Seats) != 8 {
		t.Fatalf("the other process reads %d seats, want 8", len(before.Seats))
	}
	if _, err := w.UpdateHall(ctx, staff, h.ID, catalog.HallInput{Name: "Shared", Layout: "SSSS\nSSSS\nSSS"}); err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		after, err := other.Hall(ctx, h.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(after.Seats) == 11 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the other process still reads %d seats after the edit, want 11", len(after.Seats))
		}
	}
}
