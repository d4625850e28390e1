package catalog_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/demo"
	"seatflow/services/orders"
)

// TestHallWrites_LargestGrid: a hall may use the whole 300 x 300 grid; its layout text
// comes back as it was written.
func TestHallWrites_LargestGrid(t *testing.T) {
	_, w, staff, _ := newCatalogWriterEnv(t)
	ctx := context.Background()
	text := "S\n" + strings.Repeat("\n", catalog.MaxHallRows-2) + strings.Repeat(".", catalog.MaxHallCols-1) + "V\n"
	h, err := w.CreateHall(ctx, staff, catalog.HallInput{Name: "Corners", Layout: text})
	if err != nil {
		t.Fatal(err)
	}
	if h.Rows != 300 || h.Cols != 300 || len(h.Seats) != 2 || h.Layout != text {
		t.Fatalf("%d x %d with %d seats, layout %d bytes", h.Rows, h.Cols, len(h.Seats), len(h.Layout))
	}
	if last := h.Seats[1]; last.Label != "B1" || last.Row != 300 || last.Col != 300 || last.ZoneCode != catalog.ZoneVIP {
		t.Errorf("last seat %+v", last)
	}
}

// TestHallWrites_ThousandsOfSeats: a hall of 7,208 seats is created, and edited so that
// every seat moves, every label leaves and comes back; each step reads, locks and
// writes its seats in several statements (more seats than one IN list or one INSERT
// takes), and a taken seat still refuses the edit that moves it.
func TestHallWrites_ThousandsOfSeats(t *testing.T) {
	e, w, staff, m := newCatalogWriterEnv(t)
	ctx := context.Background()
	text := demo.StadiumLayout(demo.StadiumOptions{Rows: 70, Cols: 110})
	h, err := w.CreateHall(ctx, staff, catalog.HallInput{Name: "Arena", Layout: text})
	if err != nil {
		t.Fatal(err)
	}
	const seats = 68 * 106
	if len(h.Seats) != seats {
		t.Fatalf("%d seats, want %d", len(h.Seats), seats)
	}
	ids := hallSeatIDsByLabel(e, h.ID)
	last := h.Seats[len(h.Seats)-1].Label
	show := hallShow(t, e, w, staff, m, h, e.Clock.Now().Add(26*time.Hour).Truncate(time.Hour))
	if _, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(1), ShowID: show.ID, SeatIDs: []int64{ids[last]}}); err != nil {
		t.Fatal(err)
	}

	moved := ".\n" + text // a cross aisle in front: every seat one line back
	_, err = w.UpdateHall(ctx, staff, h.ID, catalog.HallInput{Name: "Arena", Layout: moved})
	if se, ok := err.(*services.Error); !ok || se.Code != services.CodeConflict || strings.Join(se.Seats, ",") != last {
		t.Fatalf("moving a held seat: %v, want CONFLICT naming %s", err, last)
	}

	e.Clock.Advance(27 * time.Hour) // the show has started: its seats no longer hold the layout
	steps := []struct {
		name, layout string
		row          int    // the grid line of the hall's first seat afterwards
		first        string // its label
		kept         int    // labels that still (or again) have their first seat id
	}{
		{"every seat moves", moved, 2, "A1", seats},
		{"every label leaves", "ZA|" + moved[2:], 1, "ZA1", 0},
		{"the labels come back", text, 1, "A1", 1}, // the ordered seat gets its id back
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			// on a machine busy with other test runs a step can pass its transaction's
			// bound (hallTxTimeout): UNAVAILABLE writes nothing and says try again, as
			// staff would
			got, err := w.UpdateHall(ctx, staff, h.ID, catalog.HallInput{Name: "Arena", Layout: s.layout})
			for try := 1; try < 3 && services.ErrorCode(err) == services.CodeUnavailable; try++ {
				t.Logf("try %d: %v", try, err)
				got, err = w.UpdateHall(ctx, staff, h.ID, catalog.HallInput{Name: "Arena", Layout: s.layout})
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Seats) != seats || got.Seats[0].Row != s.row || got.Seats[0].Label != s.first {
				t.Fatalf("%d seats, first %s on line %d; want %d, %s on line %d", len(got.Seats), got.Seats[0].Label, got.Seats[0].Row, seats, s.first, s.row)
			}
			now := hallSeatIDsByLabel(e, h.ID)
			same := 0
			for label, id := range now {
				if ids[label] == id {
					same++
				}
			}
			if same != s.kept || (s.kept == 1 && now[last] != ids[last]) {
				t.Errorf("%d labels have their first seat id, want %d (%s: %d, was %d)", same, s.kept, last, now[last], ids[last])
			}
		})
	}
	var retired int
	if err := e.DB.Get(&retired, "SELECT COUNT(*) FROM seats WHERE hall_id IS NULL AND retired_hall_id = ?", h.ID); err != nil || retired != 0 {
		t.Errorf("%d seats still retired after their labels came back (%v)", retired, err)
	}
}
