package web

import (
	"encoding/json"
	"testing"
	"time"
)

// seatsInZone returns up to n free standard seats of the show in zone, side by side in
// the seat map's order.
func (a *testApp) seatsInZone(show, zone string, n int) []string {
	var out []string
	for _, s := range a.seatMap(show) {
		if s.State == "free" && s.Kind == "standard" && s.Zone == zone && len(out) < n {
			out = append(out, s.ID)
		}
	}
	return out
}

// orderSeatTypes returns an order body's seats as seat id -> [ticket type, price].
func orderSeatTypes(t *testing.T, r apiResp) (map[string][2]any, float64) {
	t.Helper()
	var o struct {
		TotalMinor float64 `json:"total_minor"`
		Seats      []struct {
			ID         string  `json:"id"`
			TicketType string  `json:"ticket_type"`
			PriceMinor float64 `json:"price_minor"`
		}
	}
	if err := json.Unmarshal(r.body, &o); err != nil {
		t.Fatalf("order: %d %s", r.status, r.body)
	}
	out := map[string][2]any{}
	for _, s := range o.Seats {
		out[s.ID] = [2]any{s.TicketType, s.PriceMinor}
	}
	return out, o.TotalMinor
}

// showTypes returns GET /api/v1/shows/{id}'s ticket types: codes in order, and each
// type's price per zone.
func (a *testApp) showTypes(show string) ([]string, map[string]map[string]float64) {
	a.t.Helper()
	r := a.do("GET", "/api/v1/shows/"+show, "", nil, nil)
	var v struct {
		TicketTypes []struct {
			Code   string
			Name   string
			Prices []struct {
				Zone       string
				PriceMinor float64 `json:"price_minor"`
			}
		} `json:"ticket_types"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &v) != nil {
		a.t.Fatalf("show: %d %s", r.status, r.body)
	}
	var codes []string
	prices := map[string]map[string]float64{}
	for _, tt := range v.TicketTypes {
		codes = append(codes, tt.Code)
		prices[tt.Code] = map[string]float64{}
		for _, p := range tt.Prices {
			prices[tt.Code][p.Zone] = p.PriceMinor
		}
	}
	return codes, prices
}

// TestTicketTypes_AdminAPI: staff add ticket types with the contract's code rule; a bad
// code or name is 400 and adds nothing, a taken code (adult included) is 409, customers
// are refused.
func TestTicketTypes_AdminAPI(t *testing.T) {
	a := newTestApp(t, nil)
	staff, buyer := a.demoToken("staff"), a.newUser()
	if r := a.do("POST", "/api/v1/admin/ticket-types", staff, map[string]any{"code": "child", "name": "Child", "name_zh": "儿童", "note": "ID required at the door"}, nil); r.status != 201 || r.json(t)["code"] != "child" {
		t.Fatalf("create child: %d %s", r.status, r.body)
	}
	for _, tc := range []struct {
		name   string
		body   map[string]any
		status int
		code   string
	}{
		{"upper case", map[string]any{"code": "Child", "name": "Child"}, 400, "INVALID_REQUEST"},
		{"digit first", map[string]any{"code": "1child", "name": "Child"}, 400, "INVALID_REQUEST"},
		{"too long", map[string]any{"code": "a234567890123456789012345678901234", "name": "Long"}, 400, "INVALID_REQUEST"},
		{"empty code", map[string]any{"code": "", "name": "None"}, 400, "INVALID_REQUEST"},
		{"no name", map[string]any{"code": "student"}, 400, "INVALID_REQUEST"},
		{"unknown field", map[string]any{"code": "student", "name": "Student", "price": 1}, 400, "INVALID_REQUEST"},
		{"taken", map[string]any{"code": "child", "name": "Kid"}, 409, "CONFLICT"},
		{"adult is built in", map[string]any{"code": "adult", "name": "Grown-up"}, 409, "CONFLICT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := a.do("POST", "/api/v1/admin/ticket-types", staff, tc.body, nil); r.status != tc.status || r.code() != tc.code {
				t.Errorf("%v: %d %s, want %d %s", tc.body, r.status, r.body, tc.status, tc.code)
			}
		})
	}
	if r := a.do("POST", "/api/v1/admin/ticket-types", buyer, map[string]any{"code": "student", "name": "Student"}, nil); r.status != 403 {
		t.Errorf("customer creates a type: %d", r.status)
	}
	r := a.do("GET", "/api/v1/admin/ticket-types", staff, nil, nil)
	var list struct {
		TicketTypes []struct{ Code, Name, Note string } `json:"ticket_types"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &list) != nil || len(list.TicketTypes) != 2 ||
		list.TicketTypes[0].Code != "adult" || list.TicketTypes[1].Code != "child" || list.TicketTypes[1].Note != "ID required at the door" {
		t.Fatalf("list after refusals: %d %s", r.status, r.body)
	}
}

// TestTicketTypes_OrderFlow walks the contract: a show prices child in one zone; an
// order of chosen seats with mixed types, and best available with ticket counts, cost
// each seat its type's price, in the 201 and every read; unknown types and bad counts
// are 400, a type the zone does not sell 422 TICKET_TYPE_NOT_OFFERED naming the seats,
// each refusal holding nothing; a price change and a PATCH that stops a pair leave the
// orders as they were.
func TestTicketTypes_OrderFlow(t *testing.T) {
	a := newTestApp(t, nil)
	staff, buyer := a.demoToken("staff"), a.newUser()
	for _, code := range []string{"child", "senior"} {
		if r := a.do("POST", "/api/v1/admin/ticket-types", staff, map[string]any{"code": code, "name": code}, nil); r.status != 201 {
			t.Fatalf("create %s: %d %s", code, r.status, r.body)
		}
	}
	p := a.pickCatalog(staff)
	if len(p.zones) < 2 {
		t.Fatalf("the demo's biggest hall has %d zones; the test needs 2", len(p.zones))
	}
	z0, z1 := p.zones[0], p.zones[1]
	now := a.clock.Now().Truncate(time.Second)
	starts := now.AddDate(0, 0, 20).Truncate(time.Hour)
	body := p.showBody(starts, now.Add(-time.Minute), starts.Add(-time.Hour), 4000)
	body["ticket_prices"] = []map[string]any{{"type": "dragon", "zone": z0, "price_minor": 100}}
	if r := a.do("POST", "/api/v1/admin/shows", staff, body, nil); r.status != 400 {
		t.Fatalf("show with an unknown type: %d %s", r.status, r.body)
	}
	body["ticket_prices"] = []map[string]any{{"type": "child", "zone": z0, "price_minor": 2500}}
	r := a.do("POST", "/api/v1/admin/shows", staff, body, nil)
	if r.status != 201 {
		t.Fatalf("create show: %d %s", r.status, r.body)
	}
	show := r.json(t)["id"].(string)
	codes, prices := a.showTypes(show)
	if len(codes) != 2 || codes[0] != "adult" || codes[1] != "child" || prices["adult"][z0] != 4000 ||
		prices["child"][z0] != 2500 || len(prices["child"]) != 1 {
		t.Fatalf("show's ticket types: %v %v", codes, prices)
	}

	in0 := a.seatsInZone(show, z0, 6)
	in1 := a.seatsInZone(show, z1, 1)
	orders := "/api/v1/shows/" + show + "/orders"
	for _, tc := range []struct {
		name   string
		body   map[string]any
		status int
		code   string
		seats  int // seats the error names
	}{
		{"unknown type", map[string]any{"seat_ids": in0[:1], "tickets": map[string]string{in0[0]: "dragon"}}, 400, "INVALID_REQUEST", 0},
		{"ticket for a seat not ordered", map[string]any{"seat_ids": in0[:1], "tickets": map[string]string{in0[1]: "child"}}, 400, "INVALID_REQUEST", 0},
		{"tickets not an object", map[string]any{"seat_ids": in0[:1], "tickets": []string{"child"}}, 400, "INVALID_REQUEST", 0},
		{"type not sold in the zone", map[string]any{"seat_ids": []string{in0[0], in1[0]}, "tickets": map[string]string{in1[0]: "child"}}, 422, "TICKET_TYPE_NOT_OFFERED", 1},
		{"type not sold at all", map[string]any{"seat_ids": in0[:2], "tickets": map[string]string{in0[0]: "senior", in0[1]: "senior"}}, 422, "TICKET_TYPE_NOT_OFFERED", 2},
		{"counts not adding up", map[string]any{"zone": z0, "quantity": 2, "ticket_counts": map[string]int{"child": 1}}, 400, "INVALID_REQUEST", 0},
		{"negative count", map[string]any{"zone": z0, "quantity": 1, "ticket_counts": map[string]int{"child": -1, "adult": 2}}, 400, "INVALID_REQUEST", 0},
		{"counts with chosen seats", map[string]any{"seat_ids": in0[:1], "ticket_counts": map[string]int{"adult": 1}}, 400, "INVALID_REQUEST", 0},
		{"best available, type not sold in the zone", map[string]any{"zone": z1, "quantity": 1, "ticket_counts": map[string]int{"child": 1}}, 422, "TICKET_TYPE_NOT_OFFERED", 0},
		{"best available, unknown type", map[string]any{"zone": z0, "quantity": 1, "ticket_counts": map[string]int{"dragon": 1}}, 400, "INVALID_REQUEST", 0},
		{"expected total at the adult price", map[string]any{"seat_ids": in0[:2], "tickets": map[string]string{in0[0]: "child"}, "expected_total_minor": 8000}, 409, "PRICE_CHANGED", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := a.do("POST", orders, buyer, tc.body, nil)
			if r.status != tc.status || r.code() != tc.code {
				t.Fatalf("%d %s, want %d %s", r.status, r.body, tc.status, tc.code)
			}
			var e struct {
				Error struct{ Seats []string } `json:"error"`
			}
			_ = json.Unmarshal(r.body, &e)
			if len(e.Error.Seats) != tc.seats {
				t.Errorf("error names seats %v, want %d", e.Error.Seats, tc.seats)
			}
		})
	}
	for _, id := range append(in0, in1...) {
		if st := a.seatState(show, id); st != "free" {
			t.Fatalf("seat %s is %s after refusals: a refusal held it", id, st)
		}
	}

	// chosen seats, mixed: one child, one adult (named), one adult (not named)
	r = a.do("POST", orders, buyer, map[string]any{"seat_ids": in0[:3], "tickets": map[string]string{in0[0]: "child", in0[1]: "adult"}, "expected_total_minor": 10500}, nil)
	if r.status != 201 {
		t.Fatalf("mixed order: %d %s", r.status, r.body)
	}
	no := r.json(t)["order_no"].(string)
	want := map[string][2]any{in0[0]: {"child", 2500.0}, in0[1]: {"adult", 4000.0}, in0[2]: {"adult", 4000.0}}
	check := func(label string, r apiResp) {
		t.Helper()
		got, total := orderSeatTypes(t, r)
		if total != 10500 || len(got) != 3 {
			t.Errorf("%s: total %v seats %v", label, total, got)
		}
		for id, w := range want {
			if got[id] != w {
				t.Errorf("%s: seat %s is %v, want %v", label, id, got[id], w)
			}
		}
	}
	check("201", r)
	check("GET /orders/{no}", a.do("GET", "/api/v1/orders/"+no, buyer, nil, nil))
	check("staff GET", a.do("GET", "/api/v1/admin/orders/"+no, staff, nil, nil))

	// best available with counts: child first in the block's seat order, then adult
	r = a.do("POST", orders, a.newUser(), map[string]any{"zone": z0, "quantity": 2, "ticket_counts": map[string]int{"child": 1, "adult": 1}}, nil)
	if r.status != 201 {
		t.Fatalf("best available with counts: %d %s", r.status, r.body)
	}
	if got, total := orderSeatTypes(t, r); total != 6500 || len(got) != 2 {
		t.Errorf("best available: total %v seats %v", total, got)
	}

	// a PATCH stops child and raises adult: new orders only
	r = a.do("PATCH", "/api/v1/admin/shows/"+show, staff, map[string]any{"ticket_prices": []map[string]any{
		{"type": "child", "zone": z0, "price_minor": nil}, {"type": "adult", "zone": z0, "price_minor": 4200}}}, nil)
	if r.status != 200 {
		t.Fatalf("PATCH ticket_prices: %d %s", r.status, r.body)
	}
	if codes, prices := a.showTypes(show); len(codes) != 1 || prices["adult"][z0] != 4200 {
		t.Errorf("after PATCH: %v %v", codes, prices)
	}
	if r := a.do("PATCH", "/api/v1/admin/shows/"+show, staff, map[string]any{"ticket_prices": []map[string]any{{"type": "adult", "zone": z0, "price_minor": nil}}}, nil); r.status != 400 {
		t.Errorf("PATCH stopping adult: %d %s", r.status, r.body)
	}
	check("GET after the price change", a.do("GET", "/api/v1/orders/"+no, buyer, nil, nil))
	if r := a.do("POST", orders, buyer, map[string]any{"seat_ids": in0[5:6], "tickets": map[string]string{in0[5]: "child"}}, nil); r.status != 422 || r.code() != "TICKET_TYPE_NOT_OFFERED" {
		t.Errorf("child after it stopped: %d %s", r.status, r.body)
	}
}

// TestPriceCards_ApplyToShows: a card of the cinema prices many shows at once (adult as
// the zone price, the other types exactly as the card says); editing the card later
// leaves the shows it priced, and their orders, as they were; bad cards change nothing.
func TestPriceCards_ApplyToShows(t *testing.T) {
	a := newTestApp(t, nil)
	staff, buyer := a.demoToken("staff"), a.newUser()
	if r := a.do("POST", "/api/v1/admin/ticket-types", staff, map[string]any{"code": "student", "name": "Student", "name_zh": "学生"}, nil); r.status != 201 {
		t.Fatalf("create student: %d %s", r.status, r.body)
	}
	p := a.pickCatalog(staff)
	z0 := p.zones[0]
	now := a.clock.Now().Truncate(time.Second)
	var shows []string
	for i := 0; i < 2; i++ {
		starts := now.AddDate(0, 0, 40+i).Truncate(time.Hour)
		r := a.do("POST", "/api/v1/admin/shows", staff, p.showBody(starts, now.Add(-time.Minute), starts.Add(-time.Hour), 4000), nil)
		if r.status != 201 {
			t.Fatalf("create show: %d %s", r.status, r.body)
		}
		shows = append(shows, r.json(t)["id"].(string))
	}
	cinema := a.do("GET", "/api/v1/shows/"+shows[0], "", nil, nil).json(t)["cinema"].(map[string]any)["id"].(string)
	card := map[string]any{"cinema_id": cinema, "name": "Weekday", "prices": []map[string]any{
		{"type": "adult", "zone": z0, "price_minor": 3800}, {"type": "student", "zone": z0, "price_minor": 2900}, {"type": "student", "zone": "no_such_zone", "price_minor": 1}}}
	r := a.do("POST", "/api/v1/admin/price-cards", staff, card, nil)
	if r.status != 201 {
		t.Fatalf("create card: %d %s", r.status, r.body)
	}
	cardID := r.json(t)["id"].(string)
	for _, tc := range []struct {
		name   string
		body   map[string]any
		status int
	}{
		{"taken name", card, 409},
		{"unknown type", map[string]any{"cinema_id": cinema, "name": "X", "prices": []map[string]any{{"type": "dragon", "zone": z0, "price_minor": 1}}}, 400},
		{"negative price", map[string]any{"cinema_id": cinema, "name": "X", "prices": []map[string]any{{"type": "adult", "zone": z0, "price_minor": -1}}}, 400},
		{"no prices", map[string]any{"cinema_id": cinema, "name": "X", "prices": []any{}}, 400},
		{"unknown cinema", map[string]any{"cinema_id": "999", "name": "X", "prices": []map[string]any{{"type": "adult", "zone": z0, "price_minor": 1}}}, 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := a.do("POST", "/api/v1/admin/price-cards", staff, tc.body, nil); r.status != tc.status {
				t.Errorf("%d %s, want %d", r.status, r.body, tc.status)
			}
		})
	}
	var list struct {
		PriceCards []struct{ ID string } `json:"price_cards"`
	}
	if r := a.do("GET", "/api/v1/admin/price-cards?cinema_id="+cinema, staff, nil, nil); json.Unmarshal(r.body, &list) != nil || len(list.PriceCards) != 1 {
		t.Fatalf("cards after refusals: %s", r.body)
	}
	if r := a.do("POST", "/api/v1/admin/price-cards/"+cardID+"/apply", staff, map[string]any{"show_ids": shows}, nil); r.status != 200 {
		t.Fatalf("apply: %d %s", r.status, r.body)
	}
	for _, s := range shows {
		codes, prices := a.showTypes(s)
		if len(codes) != 2 || codes[1] != "student" || prices["adult"][z0] != 3800 || prices["student"][z0] != 2900 {
			t.Errorf("show %s after apply: %v %v", s, codes, prices)
		}
	}
	seat := a.seatsInZone(shows[0], z0, 1)
	r = a.do("POST", "/api/v1/shows/"+shows[0]+"/orders", buyer, map[string]any{"seat_ids": seat, "tickets": map[string]string{seat[0]: "student"}}, nil)
	if r.status != 201 || r.json(t)["total_minor"] != 2900.0 {
		t.Fatalf("student order: %d %s", r.status, r.body)
	}
	no := r.json(t)["order_no"].(string)
	card["prices"] = []map[string]any{{"type": "adult", "zone": z0, "price_minor": 5000}}
	delete(card, "cinema_id")
	if r := a.do("PATCH", "/api/v1/admin/price-cards/"+cardID, staff, card, nil); r.status != 200 {
		t.Fatalf("edit card: %d %s", r.status, r.body)
	}
	if _, prices := a.showTypes(shows[1]); prices["adult"][z0] != 3800 || prices["student"][z0] != 2900 {
		t.Errorf("editing the card changed a show it was applied to: %v", prices)
	}
	if got, total := orderSeatTypes(t, a.do("GET", "/api/v1/orders/"+no, buyer, nil, nil)); total != 2900 || got[seat[0]] != [2]any{"student", 2900.0} {
		t.Errorf("order after the card's edit: %v %v", total, got)
	}
	if r := a.do("POST", "/api/v1/admin/price-cards/"+cardID+"/apply", staff, map[string]any{"show_ids": shows[1:]}, nil); r.status != 200 {
		t.Fatalf("apply again: %d %s", r.status, r.body)
	}
	if codes, prices := a.showTypes(shows[1]); len(codes) != 1 || prices["adult"][z0] != 5000 {
		t.Errorf("after applying the edited card: %v %v", codes, prices)
	}
	if r := a.do("POST", "/api/v1/admin/price-cards/"+cardID+"/apply", staff, map[string]any{"show_ids": []string{}}, nil); r.status != 400 {
		t.Errorf("apply to no show: %d %s", r.status, r.body)
	}
}
