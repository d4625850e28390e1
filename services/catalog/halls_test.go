package catalog_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/internal/testenv"
	"seatflow/services/orders"
)

// hallSeatIDsByLabel reads label -> seat id of a hall afresh.
func hallSeatIDsByLabel(e *testenv.TestEnv, hallID int64) map[string]int64 {
	e.T.Helper()
	var rows []struct {
		ID    int64  `db:"id"`
		Label string `db:"label"`
	}
	if err := e.DB.Select(&rows, "SELECT id, label FROM seats WHERE hall_id = ?", hallID); err != nil {
		e.T.Fatal(err)
	}
	out := map[string]int64{}
	for _, r := range rows {
		out[r.Label] = r.ID
	}
	return out
}

// hallShow creates a show of movie m in hall starting at starts, on sale now, every
// zone priced.
func hallShow(t *testing.T, e *testenv.TestEnv, w *catalog.CatalogWriter, staff int64, m *services.Movie, h *catalog.HallLayout, starts time.Time) *services.Show {
	t.Helper()
	now := e.Clock.Now()
	in := catalog.NewShow{MovieID: m.ID, HallID: h.ID, StartsAt: starts, SaleOpensAt: now.Add(-time.Minute), SaleClosesAt: starts}
	for _, z := range h.Zones {
		in.Prices = append(in.Prices, catalog.ZonePrice{z.Code, 4000})
	}
	s, err := w.CreateShow(context.Background(), staff, in)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCatalogWriter_CreateHall(t *testing.T) {
	e, w, staff, _ := newCatalogWriterEnv(t)
	ctx := context.Background()
	h, err := w.CreateHall(ctx, staff, catalog.HallInput{Name: "  Studio 9 ", Layout: "WCSS.SS\nPPPP.PP\n\nVV.VV", Numbering: catalog.NumberRightToLeft})
	if err != nil {
		t.Fatal(err)
	}
	if h.Name != "Studio 9" || h.Rows != 4 || h.Cols != 7 || len(h.Seats) != 16 || len(h.Zones) != 3 {
		t.Errorf("created %s %dx%d with %d seats, %d zones", h.Name, h.Rows, h.Cols, len(h.Seats), len(h.Zones))
	}
	if h.Layout != "WCSS.SS\nPPPP.PP\n\nVV.VV\n" || h.Numbering != catalog.NumberRightToLeft {
		t.Errorf("layout %q %s", h.Layout, h.Numbering)
	}
	if s := h.Seats[0]; s.Label != "A6" || s.Kind != services.KindWheelchair || s.ZoneCode != catalog.ZoneStandard {
		t.Errorf("first seat %+v", s)
	}
	entries := auditRows(e, "hall", h.ID)
	if len(entries) != 1 || entries[0].Action != "hall.create" || *entries[0].ActorID != staff || len(entries[0].Before) != 0 {
		t.Fatalf("audit %+v", entries)
	}
	var after catalog.HallAudit
	if err := json.Unmarshal(entries[0].After, &after); err != nil || after.Name != "Studio 9" || after.Seats[catalog.ZoneVIP] != 4 || after.Layout != h.Layout {
		t.Errorf("audit after %s (%v)", entries[0].After, err)
	}

	cases := []struct {
		name      string
		in        catalog.HallInput
		code, msg string
	}{
		{"duplicate name", catalog.HallInput{Name: "STUDIO 9", Layout: "SS"}, services.CodeConflict, "already exists"},
		{"blank name", catalog.HallInput{Name: "  ", Layout: "SS"}, services.CodeInvalidRequest, "name must be"},
		{"long name", catalog.HallInput{Name: strings.Repeat("n", 101), Layout: "SS"}, services.CodeInvalidRequest, "name must be"},
		{"bad layout", catalog.HallInput{Name: "Other", Layout: "SS\nSX"}, services.CodeInvalidRequest, "line 2, column 2: 'X'"},
		{"no seats", catalog.HallInput{Name: "Other", Layout: "..."}, services.CodeInvalidRequest, "no seat to sell"},
	}
	halls, seats, audits := e.CountRows("halls"), e.CountRows("seats"), e.CountRows("audit_log")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := w.CreateHall(ctx, staff, c.in)
			var se *services.Error
			if !errors.As(err, &se) || se.Code != c.code || !strings.Contains(se.Message, c.msg) {
				t.Fatalf("got %v, want %s saying %q", err, c.code, c.msg)
			}
			if c.code == services.CodeConflict && !errors.Is(err, catalog.ErrDuplicateHallName) {
				t.Errorf("conflict does not wrap ErrDuplicateHallName: %v", err)
			}
		})
	}
	if e.CountRows("halls") != halls || e.CountRows("seats") != seats || e.CountRows("audit_log") != audits {
		t.Error("a refused create wrote something")
	}
}

func TestCatalogWriter_UpdateHall_KeepsSeatIDs(t *testing.T) {
	e, w, staff, _ := newCatalogWriterEnv(t)
	ctx := context.Background()
	h, err := w.CreateHall(ctx, staff, catalog.HallInput{Name: "Keep", Layout: "SSSS\nSSSS\nSS"})
	if err != nil {
		t.Fatal(err)
	}
	before := hallSeatIDsByLabel(e, h.ID)
	// row B becomes premium with a fifth seat; C1 becomes blocked, C2 leaves; row D is new
	h2, err := w.UpdateHall(ctx, staff, h.ID, catalog.HallInput{Name: "Keep (renamed)", Layout: "SSSS\nPPPPP\nB\nVVV"})
	if err != nil {
		t.Fatal(err)
	}
	after := hallSeatIDsByLabel(e, h.ID)
	for _, l := range []string{"A1", "A4", "B1", "B4", "C1"} {
		if before[l] == 0 || after[l] != before[l] {
			t.Errorf("seat %s: id %d before, %d after", l, before[l], after[l])
		}
	}
	if _, ok := after["C2"]; ok {
		t.Error("C2 still in the hall")
	}
	if after["B5"] == 0 || after["D3"] == 0 {
		t.Errorf("new seats missing: %v", after)
	}
	if h2.Name != "Keep (renamed)" || h2.Rows != 4 || h2.Cols != 5 || h2.Layout != "SSSS\nPPPPP\nB\nVVV\n" {
		t.Errorf("after update %s %dx%d %q", h2.Name, h2.Rows, h2.Cols, h2.Layout)
	}
	var zones []string
	if err := e.DB.Select(&zones, "SELECT code FROM zones WHERE hall_id = ? ORDER BY code", h.ID); err != nil {
		t.Fatal(err)
	}
	if strings.Join(zones, ",") != "premium,standard,vip" {
		t.Errorf("zones %v", zones)
	}
	// moving every seat of a row (numbers now from the right) keeps ids by label
	if _, err := w.UpdateHall(ctx, staff, h.ID, catalog.HallInput{Name: "Keep", Layout: "PPPP\nPPPPP\nP\nPPP", Numbering: catalog.NumberRightToLeft}); err != nil {
		t.Fatal(err)
	}
	again := hallSeatIDsByLabel(e, h.ID)
	if again["A1"] != before["A1"] || len(again) != 13 {
		t.Errorf("after renumbering: %v", again)
	}
	var zoneCount int
	if err := e.DB.Get(&zoneCount, "SELECT COUNT(*) FROM zones WHERE hall_id = ?", h.ID); err != nil || zoneCount != 1 {
		t.Errorf("unused zones left: %d (%v)", zoneCount, err)
	}
	entries := auditRows(e, "hall", h.ID)
	if len(entries) != 3 || entries[1].Action != "hall.update" {
		t.Fatalf("audit %+v", entries)
	}
	var b, a catalog.HallAudit
	if json.Unmarshal(entries[1].Before, &b) != nil || json.Unmarshal(entries[1].After, &a) != nil ||
		b.Layout != "SSSS\nSSSS\nSS\n" || a.Layout != "SSSS\nPPPPP\nB\nVVV\n" || b.Name != "Keep" || a.Name != "Keep (renamed)" {
		t.Errorf("audit before %s after %s", entries[1].Before, entries[1].After)
	}
	t.Run("unknown hall", func(t *testing.T) {
		if _, err := w.UpdateHall(ctx, staff, h.ID+1000, catalog.HallInput{Name: "X", Layout: "S"}); services.ErrorCode(err) != services.CodeNotFound {
			t.Errorf("got %v", err)
		}
	})
	t.Run("name of another hall", func(t *testing.T) {
		if _, err := w.CreateHall(ctx, staff, catalog.HallInput{Name: "Other", Layout: "S"}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.UpdateHall(ctx, staff, h.ID, catalog.HallInput{Name: "other", Layout: "S"}); !errors.Is(err, catalog.ErrDuplicateHallName) {
			t.Errorf("got %v", err)
		}
	})
}

func TestCatalogWriter_UpdateHall_RefusesTakenSeats(t *testing.T) {
	e, w, staff, m := newCatalogWriterEnv(t)
	ctx := context.Background()
	h, err := w.CreateHall(ctx, staff, catalog.HallInput{Name: "Busy", Layout: "SSSS\nSSSS"})
	if err != nil {
		t.Fatal(err)
	}
	now := e.Clock.Now()
	show1 := hallShow(t, e, w, staff, m, h, now.Add(26*time.Hour).Truncate(time.Hour))
	show2 := hallShow(t, e, w, staff, m, h, now.Add(50*time.Hour).Truncate(time.Hour))
	ids := hallSeatIDsByLabel(e, h.ID)
	order := func(show *services.Show, labels ...string) *services.Order {
		t.Helper()
		var seatIDs []int64
		for _, l := range labels {
			seatIDs = append(seatIDs, ids[l])
		}
		o, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(1), ShowID: show.ID, SeatIDs: seatIDs})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	order(show1, "A2")              // held
	e.Pay(order(show1, "B3"))       // sold
	order(show2, "A2")              // held in the second show too
	e.Pay(order(show2, "A4", "B4")) // sold, but nothing below moves A4
	when1 := show1.StartsAt.In(time.UTC).Format("Mon 2 Jan 15:04")
	when2 := show2.StartsAt.In(time.UTC).Format("Mon 2 Jan 15:04")

	refused := []struct {
		name, layout string
		num          catalog.Numbering
		says         []string
		seats        string
	}{
		{"remove a held seat", "S\nSSSS", "", []string{`"Writer Test Movie" on ` + when1 + ` (A2 held`, `on ` + when2 + ` (A2 held`}, "A2,A4"},
		{"move a held seat", ".SSSS\nSSSS", "", []string{"A2 held", "A4 sold"}, "A2,A4"},
		{"block a held seat", "SBSS\nSSSS", "", []string{"A2 held", when1, when2}, "A2"},
		{"move a sold seat", "SSSS\nSS.SS", "", []string{"(B3 sold)", "B4 sold", when1}, "B3,B4"},
		{"renumber a row", "SSSS\nSSSS", catalog.NumberRightToLeft, []string{"A2 held", "B3 sold"}, "A2,B3,A4,B4"},
		{"aisle where a sold seat was", "SSSS\nSS.S", "", []string{"B3 sold"}, "B3,B4"},
		{"re-zone a held seat", "SPSS\nSSSS", "", []string{"A2 held", when1, when2}, "A2"},
		{"re-zone a sold seat", "SSSS\nSSPP", "", []string{"B3 sold", "B4 sold"}, "B3,B4"},
	}
	audits := e.CountRows("audit_log")
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			_, err := w.UpdateHall(ctx, staff, h.ID, catalog.HallInput{Name: "Busy", Layout: c.layout, Numbering: c.num})
			var se *services.Error
			if !errors.As(err, &se) || se.Code != services.CodeConflict {
				t.Fatalf("got %v, want CONFLICT", err)
			}
			for _, s := range c.says {
				if !strings.Contains(se.Message, s) {
					t.Errorf("message %q does not say %q", se.Message, s)
				}
			}
			if got := strings.Join(se.Seats, ","); !sameSet(got, c.seats) {
				t.Errorf("seats %s, want %s", got, c.seats)
			}
		})
	}
	if got := hallSeatIDsByLabel(e, h.ID); len(got) != 8 || got["A2"] != ids["A2"] || e.CountRows("audit_log") != audits {
		t.Fatalf("a refused update changed something: %v", got)
	}

	// free seats may change zone (priced in the same change); free seats may go; new
	// ones may come
	if _, err := w.UpdateHall(ctx, staff, h.ID, catalog.HallInput{Name: "Busy", Layout: "PSPS\nSSSS\nSSS",
		Prices: []catalog.ZonePrice{{Zone: "premium", PriceMinor: 6000}}}); err != nil {
		t.Fatalf("zone change and a new row: %v", err)
	}
	if _, err := w.UpdateHall(ctx, staff, h.ID, catalog.HallInput{Name: "Busy", Layout: "PSPS\nSSSS\nS"}); err != nil {
		t.Fatalf("removing free seats: %v", err)
	}

	// once show1 has started, its sold B3 no longer holds the layout; B3 leaves the hall
	// but keeps its label for the order
	e.Clock.Advance(27 * time.Hour)
	if _, err := w.UpdateHall(ctx, staff, h.ID, catalog.HallInput{Name: "Busy", Layout: "PSPS\nSS.S\nS"}); err == nil ||
		strings.Contains(err.Error(), "B3") || !strings.Contains(err.Error(), "B4 sold") {
		t.Fatalf("after show 1 started, want only B4 (show 2) refused: %v", err)
	}
	if _, err := w.UpdateHall(ctx, staff, h.ID, catalog.HallInput{Name: "Busy", Layout: "PSPS\nSS\nS"}); services.ErrorCode(err) != services.CodeConflict {
		t.Fatalf("B4 is sold for show 2: %v", err)
	}
	if _, err := w.UpdateHall(ctx, staff, h.ID, catalog.HallInput{Name: "Busy", Layout: "PSPS\nSS.\nS"}); services.ErrorCode(err) != services.CodeConflict {
		t.Fatalf("B4 is sold for show 2: %v", err)
	}
	if _, err := w.UpdateHall(ctx, staff, h.ID, catalog.HallInput{Name: "Busy", Layout: "PSPS\nSSSS\nS"}); err != nil {
		t.Fatal(err)
	}
	e.Clock.Advance(24 * time.Hour) // show 2 has started too
	if _, err := w.UpdateHall(ctx, staff, h.ID, catalog.HallInput{Name: "Busy", Layout: "PSPS\nSS\nS"}); err != nil {
		t.Fatalf("every show started: %v", err)
	}
	var retired struct {
		HallID  *int64 `db:"hall_id"`
		Retired *int64 `db:"retired_hall_id"`
		Label   string `db:"label"`
	}
	if err := e.DB.Get(&retired, "SELECT hall_id, retired_hall_id, label FROM seats WHERE id = ?", ids["B3"]); err != nil {
		t.Fatal(err)
	}
	if retired.HallID != nil || retired.Retired == nil || *retired.Retired != h.ID || retired.Label != "B3" {
		t.Errorf("B3 after leaving the layout: %+v", retired)
	}
	var n int
	if err := e.DB.Get(&n, "SELECT COUNT(*) FROM seats WHERE id = ?", ids["C3"]); err != nil || n != 0 {
		t.Errorf("C3 (never ordered) kept: %d %v", n, err)
	}
}

// sameSet compares two comma-separated lists as sets.
func sameSet(a, b string) bool {
	as, bs := strings.Split(a, ","), strings.Split(b, ",")
	if len(as) != len(bs) {
		return false
	}
	m := map[string]bool{}
	for _, x := range as {
		m[x] = true
	}
	for _, x := range bs {
		if !m[x] {
			return false
		}
	}
	return true
}

// TestCatalogWriter_UpdateHall_SeatMapFollows edits the hall of a show whose seat map is
// loaded: a free seat removed from the layout leaves the map, new seats appear free, a
// seat now blocked is blocked, zone counts follow, held and sold seats stay.
func TestCatalogWriter_UpdateHall_SeatMapFollows(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	e.Catalog.WithClock(e.Clock)
	w := e.CatalogWriter(e.Shows)
	ctx := context.Background()
	held, err := e.Create(e.User(1), e.SeatIDs("A1")...)
	if err != nil {
		t.Fatal(err)
	}
	sold, err := e.Create(e.User(2), e.SeatIDs("A2")...)
	if err != nil {
		t.Fatal(err)
	}
	e.Pay(sold)
	old := map[string]int64{}
	for _, l := range []string{"A1", "A2", "B20", "C5", "J1"} {
		old[l] = e.SeatIDs(l)[0]
	}
	std := strings.Repeat("S", 10) + "." + strings.Repeat("S", 10)
	prem := strings.Repeat("P", 10) + "." + strings.Repeat("P", 10)
	layout := strings.Join([]string{
		std,                     // A
		std[:20],                // B: B20 goes
		"SSSSBSSSSS" + std[10:], // C: C5 blocked
		std, std, std, std,      // D-G
		prem, prem, // H, I
		"SPPPPPPPPP" + prem[10:], // J: J1 no longer blocked, standard
		"VVVV",                   // K: new, zone vip
	}, "\n")
	if _, err := w.UpdateHall(ctx, 0, e.Hall.ID, catalog.HallInput{Name: "Test Hall", Layout: layout,
		Prices: []catalog.ZonePrice{{Zone: "vip", PriceMinor: 9000}}}); err != nil {
		t.Fatal(err)
	}
	if e.Hall, err = e.Catalog.Hall(ctx, e.Hall.ID); err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		label, want string
	}{
		{"A1", testenv.HeldBy(held)}, {"A2", testenv.SoldTo(sold)}, {"C5", "B"}, {"J1", "F"}, {"K1", "F"}, {"K4", "F"},
	}
	for _, c := range checks {
		if got := e.SeatVal(e.Show.ID, e.SeatIDs(c.label)[0]); got != c.want {
			t.Errorf("seat %s is %q in Redis, want %q", c.label, got, c.want)
		}
	}
	if got := e.SeatVal(e.Show.ID, old["B20"]); got != "" {
		t.Errorf("removed seat B20 is still %q in Redis", got)
	}
	if e.SeatIDs("C5")[0] != old["C5"] || e.SeatIDs("J1")[0] != old["J1"] {
		t.Error("seat ids changed")
	}
	// standard: 7 rows x 20 - A1, A2 taken - B20 - C5 + J1 = 137; premium 2 x 20 + 19 = 59
	for zone, want := range map[string]string{"standard": "137", "premium": "59", "vip": "4"} {
		if got := e.ZoneFree(e.Show.ID, zone); got != want {
			t.Errorf("zone %s: %s free in Redis, want %s", zone, got, want)
		}
	}
	// the new zone is priced for the show: its seats sell at that price
	o, err := e.Create(e.User(3), e.SeatIDs("K1")...)
	if err != nil || o.TotalMinor != 9000 {
		t.Fatalf("ordering K1 (vip): %+v %v", o, err)
	}
	e.CheckInvariants()
}
