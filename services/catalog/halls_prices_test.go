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
	"seatflow/services/orders"
)

// TestUpdateHall_KeepsZonesPriced: a layout that puts seats in a zone the hall's upcoming
// shows have no price for is refused with the shows named, and changes nothing, unless
// the same change prices the zone; shows that price a zone already keep their price, and
// a cancelled show needs none. (Invariant 12.)
func TestUpdateHall_KeepsZonesPriced(t *testing.T) {
	e, w, staff, m := newCatalogWriterEnv(t)
	ctx := context.Background()
	h, err := w.CreateHall(ctx, staff, catalog.HallInput{Name: "Priced", Layout: "SSSS\nSSSS"})
	if err != nil {
		t.Fatal(err)
	}
	now := e.Clock.Now()
	show1 := hallShow(t, e, w, staff, m, h, now.Add(26*time.Hour).Truncate(time.Hour))
	show2 := hallShow(t, e, w, staff, m, h, now.Add(50*time.Hour).Truncate(time.Hour))
	gone := hallShow(t, e, w, staff, m, h, now.Add(74*time.Hour).Truncate(time.Hour))
	e.Exec("UPDATE shows SET status = 'cancelled' WHERE id = ?", gone.ID)
	edit := func(layout string, prices ...catalog.ZonePrice) error {
		_, err := w.UpdateHall(ctx, staff, h.ID, catalog.HallInput{Name: "Priced", Layout: layout, Prices: prices})
		return err
	}
	priceOf := func(show *services.Show, zone string) (int64, bool) {
		t.Helper()
		s, err := e.Catalog.Show(ctx, show.ID)
		if err != nil {
			t.Fatal(err)
		}
		return s.ZonePrice(zone)
	}

	audits := e.CountRows("audit_log")
	refused := []struct {
		name, layout string
		prices       []catalog.ZonePrice
		code         string
		says         []string
	}{
		{"a new zone without a price", "SSSS\nSSSS\nVVVV", nil, services.CodeConflict,
			[]string{`"Writer Test Movie" on ` + show1.StartsAt.Format("Mon 2 Jan 15:04") + " (vip)", show2.StartsAt.Format("Mon 2 Jan 15:04") + " (vip)"}},
		{"two new zones, one priced", "SSSS\nPPPP\nVVVV", []catalog.ZonePrice{{Zone: "vip", PriceMinor: 9000}}, services.CodeConflict,
			[]string{"(premium)"}},
		{"a price of a zone the layout does not use", "SSSS\nSSSS", []catalog.ZonePrice{{Zone: "vip", PriceMinor: 9000}}, services.CodeInvalidRequest,
			[]string{`zone "vip" is not a zone of hall`}},
		{"a negative price", "SSSS\nVVVV", []catalog.ZonePrice{{Zone: "vip", PriceMinor: -1}}, services.CodeInvalidRequest,
			[]string{"must be from 0"}},
		{"a zone priced twice", "SSSS\nVVVV", []catalog.ZonePrice{{Zone: "vip", PriceMinor: 1}, {Zone: "vip", PriceMinor: 2}}, services.CodeInvalidRequest,
			[]string{"priced twice"}},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			err := edit(c.layout, c.prices...)
			var se *services.Error
			if !errors.As(err, &se) || se.Code != c.code {
				t.Fatalf("got %v, want %s", err, c.code)
			}
			for _, s := range c.says {
				if !strings.Contains(se.Message, s) {
					t.Errorf("message %q does not say %q", se.Message, s)
				}
			}
		})
	}
	if got := hallSeatIDsByLabel(e, h.ID); len(got) != 8 || e.CountRows("audit_log") != audits {
		t.Fatalf("a refused change changed the hall: %d seats", len(got))
	}
	if _, ok := priceOf(show1, "vip"); ok {
		t.Fatal("a refused change priced a zone")
	}

	// priced in the same change: both upcoming shows get the price, the cancelled one not
	if err := edit("SSSS\nSSSS\nVVVV", catalog.ZonePrice{Zone: "vip", PriceMinor: 9000}); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*services.Show{show1, show2} {
		if p, ok := priceOf(s, "vip"); !ok || p != 9000 {
			t.Errorf("show %d: vip costs %d (%v), want 9000", s.ID, p, ok)
		}
	}
	if _, ok := priceOf(gone, "vip"); ok {
		t.Error("the cancelled show was priced")
	}
	var after struct {
		Prices      map[string]int64 `json:"prices"`
		PricedShows []int64          `json:"priced_shows"`
	}
	entries := auditRows(e, "hall", h.ID)
	if err := json.Unmarshal(entries[0].After, &after); err != nil || len(after.Prices) != 1 || after.Prices["vip"] != 9000 || len(after.PricedShows) != 2 {
		t.Errorf("audit of the priced change: %s (%v)", entries[0].After, err)
	}
	// the same layout again changes nothing and writes nothing
	audits = e.CountRows("audit_log")
	if err := edit("SSSS\nSSSS\nVVVV"); err != nil || e.CountRows("audit_log") != audits {
		t.Errorf("a change that changes nothing: %v, %d audit entries added", err, e.CountRows("audit_log")-audits)
	}

	// a price given for a zone the shows price already does not change theirs, and the
	// audit records only the prices given
	if err := edit("SSSS\nPPPP\nVVVV", catalog.ZonePrice{Zone: "vip", PriceMinor: 1}, catalog.ZonePrice{Zone: "premium", PriceMinor: 7000}); err != nil {
		t.Fatal(err)
	}
	after.Prices = nil
	if err := json.Unmarshal(auditRows(e, "hall", h.ID)[0].After, &after); err != nil || len(after.Prices) != 1 || after.Prices["premium"] != 7000 {
		t.Errorf("audit of the premium change: %+v (%v)", after, err)
	}
	if p, _ := priceOf(show1, "vip"); p != 9000 {
		t.Errorf("vip of show 1 changed to %d", p)
	}
	if p, _ := priceOf(show2, "premium"); p != 7000 {
		t.Errorf("premium of show 2 is %d, want 7000", p)
	}
	// ...and its seats sell at that price
	ids := hallSeatIDsByLabel(e, h.ID)
	o, err := e.Orders.Create(ctx, orders.CreateOrderRequest{UserID: e.User(1), ShowID: show1.ID, SeatIDs: []int64{ids["B1"], ids["C1"]}})
	if err != nil || o.TotalMinor != 7000+9000 {
		t.Fatalf("B1 (premium) + C1 (vip): %+v %v", o, err)
	}

	// a zone whose seats all go loses its price on the upcoming shows, new shows need no
	// price for it, and when it comes back it is priced afresh
	if _, err := e.Orders.Cancel(ctx, o.UserID, o.OrderNo); err != nil {
		t.Fatal(err)
	}
	if err := edit("SSSS\nPPPP"); err != nil {
		t.Fatal(err)
	}
	if _, ok := priceOf(show2, "vip"); ok {
		t.Error("show 2 still prices vip, which has no seats any more")
	}
	in := catalog.NewShow{MovieID: m.ID, HallID: h.ID, StartsAt: now.Add(98 * time.Hour).Truncate(time.Hour), SaleOpensAt: now,
		Prices: []catalog.ZonePrice{{Zone: "standard", PriceMinor: 4000}, {Zone: "premium", PriceMinor: 7000}}}
	in.SaleClosesAt = in.StartsAt
	if _, err := w.CreateShow(ctx, staff, in); err != nil {
		t.Fatalf("a new show without a price for the gone zone: %v", err)
	}
	if err := edit("SSSS\nPPPP\nVVVV"); services.ErrorCode(err) != services.CodeConflict {
		t.Fatalf("vip back without a price: %v, want CONFLICT", err)
	}
	if err := edit("SSSS\nPPPP\nVVVV", catalog.ZonePrice{Zone: "vip", PriceMinor: 9500}); err != nil {
		t.Fatal(err)
	}
	if p, _ := priceOf(show2, "vip"); p != 9500 {
		t.Errorf("vip came back at %d, want the new 9500", p)
	}
}
