package web

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"seatflow/views/ticketpdf/pdfread"
)

// counterShow makes a show through the API, in a hall of its own, whose sale opens at
// opens and which starts at starts (the sale closing an hour before), priced 4000.
func (a *testApp) counterShow(staff string, opens, starts time.Time) string {
	a.t.Helper()
	pick := a.pickCatalog(staff)
	r := a.do("POST", "/api/v1/admin/halls", staff, map[string]string{"name": "Counter " + starts.Format("0102150405"), "layout": "SSSSSS\nSSSSSS"}, nil)
	if r.status != 201 {
		a.t.Fatalf("hall: %d %s", r.status, r.body)
	}
	body := map[string]any{"movie_id": pick.movie, "hall_id": r.json(a.t)["id"], "starts_at": starts.Format(time.RFC3339),
		"sale_opens_at": opens.Format(time.RFC3339), "sale_closes_at": starts.Add(-time.Hour).Format(time.RFC3339),
		"prices": []map[string]any{{"zone": "standard", "price_minor": 4000}}}
	r = a.do("POST", "/api/v1/admin/shows", staff, body, nil)
	if r.status != 201 {
		a.t.Fatalf("show: %d %s", r.status, r.body)
	}
	return r.json(a.t)["id"].(string)
}

// TestBoxOfficeAPI_Errors: the counter's refusals as the contract words them, each
// selling nothing.
func TestBoxOfficeAPI_Errors(t *testing.T) {
	a := newTestApp(t, nil)
	f := a.cinemaFixture()
	staff := a.demoToken("staff")
	now := a.clock.Now().UTC().Truncate(time.Minute)
	notYet := a.counterShow(staff, now.Add(2*time.Hour), now.Add(30*time.Hour))
	soon := a.counterShow(staff, now.Add(-time.Hour), now.Add(40*time.Hour))
	show, seats := a.onSaleShow(3)
	buyer := a.newUser()
	a.orderSeats(buyer, show, seats[:1])
	// the console's show page links to the counter while it sells, not before the opening
	for id, want := range map[string]bool{soon: true, notYet: false} {
		if got := strings.Contains(string(a.getPage("/admin/shows/"+id, staff).body), "data-box-office-link"); got != want {
			t.Errorf("show %s's console page links to the box office: %v, want %v", id, got, want)
		}
	}
	before := a.count("SELECT COUNT(*) FROM orders")
	cases := []struct {
		name, token, show string
		body              map[string]any
		status            int
		code              string
	}{
		{"before the opening", staff, notYet, map[string]any{"seat_ids": a.freeSeats(notYet, 1), "tender": "cash"}, 422, "NOT_ON_SALE"},
		{"unknown tender", staff, show, map[string]any{"seat_ids": seats[1:2], "tender": "cheque"}, 400, "INVALID_REQUEST"},
		{"no tender", staff, show, map[string]any{"seat_ids": seats[1:2]}, 400, "INVALID_REQUEST"},
		{"cash short of the total", staff, show, map[string]any{"seat_ids": seats[1:2], "tender": "cash", "tendered_minor": 1}, 400, "INVALID_REQUEST"},
		{"seat taken", staff, show, map[string]any{"seat_ids": seats[:2], "tender": "card"}, 409, "SEAT_TAKEN"},
		{"limited staff on another cinema's show", f.limited, f.showA, map[string]any{"seat_ids": []string{f.seatA}, "tender": "card"}, 403, "FORBIDDEN"},
		{"a customer", buyer, show, map[string]any{"seat_ids": seats[1:2], "tender": "card"}, 403, "FORBIDDEN"},
		{"unknown show", staff, "999999", map[string]any{"seat_ids": seats[1:2], "tender": "card"}, 404, "NOT_FOUND"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := a.do("POST", "/api/v1/admin/shows/"+tc.show+"/box-office", tc.token, tc.body, nil)
			if r.status != tc.status || r.code() != tc.code {
				t.Fatalf("-> %d %s, want %d %s", r.status, r.body, tc.status, tc.code)
			}
		})
	}
	t.Run("after the start", func(t *testing.T) {
		free := a.freeSeats(soon, 1)
		a.clock.Set(41 * time.Hour) // past the start: the counter has stopped too
		defer a.clock.Set(0)
		r := a.do("POST", "/api/v1/admin/shows/"+soon+"/box-office", staff, map[string]any{"seat_ids": free, "tender": "card"}, nil)
		if r.status != 422 || r.code() != "NOT_ON_SALE" {
			t.Fatalf("-> %d %s", r.status, r.body)
		}
	})
	if after := a.count("SELECT COUNT(*) FROM orders"); after != before {
		t.Errorf("refusals wrote %d orders", after-before)
	}
}

// TestBoxOfficeAPI_SaleTicketsAndShift: a counter sale after the online sale closed
// answers 201 paid, channel box_office, sold_by and ticket_ref; staff's order views
// show channel, sold_by and no buyer; an online order says channel online; the printed
// tickets parse (a page per seat and the receipt) and their QR code decodes to the
// reference the door accepts; and the shift it counted in closes with its difference.
func TestBoxOfficeAPI_SaleTicketsAndShift(t *testing.T) {
	a := newTestApp(t, nil)
	acc := a.accounts["staff"]
	login := a.do("POST", "/api/v1/auth/login", "", map[string]string{"email": acc.Email, "password": acc.Password}, nil).json(t)
	staff, staffID := login["token"].(string), login["user_id"].(string)
	now := a.clock.Now().UTC().Truncate(time.Minute)
	show := a.counterShow(staff, now.Add(-time.Hour), now.Add(30*time.Hour))
	var showJSON struct{ Cinema struct{ ID string } }
	json.Unmarshal(a.do("GET", "/api/v1/shows/"+show, "", nil, nil).body, &showJSON)
	r := a.do("POST", "/api/v1/admin/shifts", staff, map[string]any{"cinema_id": showJSON.Cinema.ID, "float_minor": 20000}, nil)
	if r.status != 201 {
		t.Fatalf("open shift: %d %s", r.status, r.body)
	}
	shiftID := r.json(t)["id"].(string)
	buyer := a.newUser()
	online := a.orderSeats(buyer, show, a.freeSeats(show, 1))
	a.payOrder(buyer, online)
	paidOnline, _ := a.orderJSONOf(buyer, online)
	if paidOnline["channel"] != "online" || paidOnline["ticket_ref"] == nil {
		t.Fatalf("online order: %v", paidOnline)
	}
	a.clock.Set(29*time.Hour + 30*time.Minute) // the online sale has closed; the counter sells until the start
	defer a.clock.Set(0)
	seats := a.freeSeats(show, 2)
	r = a.do("POST", "/api/v1/admin/shows/"+show+"/box-office", staff, map[string]any{"seat_ids": seats, "tender": "cash", "tendered_minor": 10000}, nil)
	if r.status != 201 {
		t.Fatalf("sale: %d %s", r.status, r.body)
	}
	var sale struct {
		OrderNo   string `json:"order_no"`
		Status    string
		Channel   string
		SoldBy    string `json:"sold_by"`
		TicketRef string `json:"ticket_ref"`
		TicketPDF string `json:"ticket_pdf"`
		Total     int64  `json:"total_minor"`
		Receipt   struct {
			Tender  string
			Change  int64   `json:"change_minor"`
			ShiftID *string `json:"shift_id"`
		}
	}
	if err := json.Unmarshal(r.body, &sale); err != nil {
		t.Fatal(err)
	}
	if sale.Status != "paid" || sale.Channel != "box_office" || sale.SoldBy != staffID || sale.TicketRef == "" ||
		sale.Receipt.Change != 10000-sale.Total || sale.Total != 8000 || sale.Receipt.ShiftID == nil || *sale.Receipt.ShiftID != shiftID {
		t.Fatalf("sale %s", r.body)
	}
	t.Run("staff order views", func(t *testing.T) {
		r := a.do("GET", "/api/v1/admin/orders/"+sale.OrderNo, staff, nil, nil)
		o := r.json(t)
		if o["channel"] != "box_office" || o["sold_by"] != staffID || o["user"] != nil {
			t.Fatalf("admin order: %s", r.body)
		}
		page := string(a.getPage("/admin/orders/"+sale.OrderNo, staff).body)
		if !strings.Contains(page, "Box office") || !strings.Contains(page, "Walk-in") {
			t.Errorf("console order page lacks the channel or the walk-in")
		}
	})
	t.Run("printed tickets", func(t *testing.T) {
		r := a.getPage(sale.TicketPDF, staff)
		if r.status != 200 || !strings.HasPrefix(string(r.body), "%PDF-") {
			t.Fatalf("pdf: %d %.200s", r.status, r.body)
		}
		if n := pdfread.Pages(r.body); n != 3 {
			t.Fatalf("%d pages, want 2 tickets and the receipt", n)
		}
		codes, err := pdfread.QRCodes(r.body)
		if err != nil || len(codes) != 2 || codes[0] != sale.TicketRef {
			t.Fatalf("QR codes %q (%v), want %q", codes, err, sale.TicketRef)
		}
		door := a.do("GET", "/api/v1/admin/tickets/"+url.PathEscape(codes[0]), staff, nil, nil)
		if door.status != 200 || door.json(t)["valid"] != true {
			t.Fatalf("the door: %d %s", door.status, door.body)
		}
		if st := a.getPage(sale.TicketPDF, buyer).status; st != 404 {
			t.Errorf("another customer -> %d, want 404", st)
		}
		own := a.getPage("/orders/"+online+"/ticket.pdf", buyer)
		codes, err = pdfread.QRCodes(own.body)
		if own.status != 200 || pdfread.Pages(own.body) != 1 || err != nil || len(codes) != 1 || codes[0] != paidOnline["ticket_ref"] {
			t.Fatalf("the buyer's own tickets: %d, %d pages, codes %q (%v)", own.status, pdfread.Pages(own.body), codes, err)
		}
	})
	t.Run("cash-up with a difference", func(t *testing.T) {
		r := a.do("POST", "/api/v1/admin/shifts/"+shiftID+"/close", staff, map[string]any{"counted_minor": 20000 + 8000 - 500}, nil)
		s := r.json(t)
		if r.status != 200 || s["expected_cash_minor"] != float64(28000) || s["difference_minor"] != float64(-500) || s["status"] != "closed" {
			t.Fatalf("close: %d %s", r.status, r.body)
		}
		if r := a.do("POST", "/api/v1/admin/shifts/"+shiftID+"/close", staff, map[string]any{"counted_minor": 0}, nil); r.status != 409 {
			t.Fatalf("closing again: %d %s", r.status, r.body)
		}
	})
}
