package web

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// adminCatalogPick is the hall with the most seats and a movie, from the admin API.
type adminCatalogPick struct {
	hall, movie string
	zones       []string
	today       string // the cinema's date by the app's clock when picked (YYYY-MM-DD)
}

func (a *testApp) pickCatalog(staff string) adminCatalogPick {
	a.t.Helper()
	r := a.do("GET", "/api/v1/admin/halls", staff, nil, nil)
	var halls struct {
		Halls []struct {
			ID, Name   string
			Rows, Cols int
			Seats      int
			Zones      []struct{ Code, Name string }
		}
	}
	if r.status != 200 || json.Unmarshal(r.body, &halls) != nil || len(halls.Halls) == 0 {
		a.t.Fatalf("admin halls: %d %s", r.status, r.body)
	}
	p := adminCatalogPick{today: a.localDate(0)}
	most := -1
	for _, h := range halls.Halls {
		if h.Seats > most && len(h.Zones) > 0 && h.Rows > 0 && h.Cols > 0 {
			most, p.hall, p.zones = h.Seats, h.ID, nil
			for _, z := range h.Zones {
				p.zones = append(p.zones, z.Code)
			}
		}
	}
	r = a.do("GET", "/api/v1/admin/movies", staff, nil, nil)
	var movies struct {
		Movies []struct {
			ID         string
			Title      string
			RuntimeMin int `json:"runtime_min"`
		}
	}
	if r.status != 200 || json.Unmarshal(r.body, &movies) != nil || len(movies.Movies) == 0 || movies.Movies[0].RuntimeMin == 0 {
		a.t.Fatalf("admin movies: %d %s", r.status, r.body)
	}
	p.movie = movies.Movies[0].ID
	return p
}

func (p adminCatalogPick) showBody(starts, opens, closes time.Time, price int) map[string]any {
	prices := []map[string]any{}
	for _, z := range p.zones {
		prices = append(prices, map[string]any{"zone": z, "price_minor": price})
	}
	return map[string]any{"movie_id": p.movie, "hall_id": p.hall, "starts_at": starts.Format(time.RFC3339),
		"sale_opens_at": opens.Format(time.RFC3339), "sale_closes_at": closes.Format(time.RFC3339),
		"prices": prices, "purchase_limit": 4}
}

// TestAdminCatalog_StaffCreatesShowAndSaleFollowsWindow walks the staff's catalog path
// through the JSON API: a show created with its sale open is on sale and sells at the
// staff's price; a show whose sale opens later is scheduled and goes on sale when the
// clock passes sale_opens_at, with no action by anyone; close-sale stops new orders.
func TestAdminCatalog_StaffCreatesShowAndSaleFollowsWindow(t *testing.T) {
	a := newTestApp(t, nil)
	staff, buyer := a.demoToken("staff"), a.newUser()
	for _, path := range []string{"/api/v1/admin/halls", "/api/v1/admin/movies"} {
		if r := a.do("GET", path, "", nil, nil); r.status != 401 {
			t.Errorf("anonymous GET %s: %d", path, r.status)
		}
		if r := a.do("GET", path, buyer, nil, nil); r.status != 403 {
			t.Errorf("customer GET %s: %d", path, r.status)
		}
	}
	if r := a.do("POST", "/api/v1/admin/movies", staff, map[string]any{"title": "Catalog Web Test", "runtime_min": 95}, nil); r.status != 201 ||
		r.json(t)["title"] != "Catalog Web Test" || r.json(t)["runtime_min"] != 95.0 {
		t.Fatalf("create movie: %d %s", r.status, r.body)
	}
	if r := a.do("POST", "/api/v1/admin/movies", staff, map[string]any{"title": "catalog web test", "runtime_min": 95}, nil); r.status != 409 || r.code() != "CONFLICT" {
		t.Errorf("duplicate movie: %d %s", r.status, r.body)
	}
	if r := a.do("POST", "/api/v1/admin/movies", staff, map[string]any{"title": " ", "runtime_min": 95}, nil); r.status != 400 {
		t.Errorf("blank title: %d %s", r.status, r.body)
	}
	p := a.pickCatalog(staff)
	now := a.clock.Now().Truncate(time.Second)
	shanghai := time.FixedZone("+08", 8*3600)
	starts := now.AddDate(0, 0, 30).Truncate(time.Hour).In(shanghai)

	r := a.do("POST", "/api/v1/admin/shows", staff, p.showBody(starts, now.Add(-time.Minute), starts.Add(-time.Hour), 3700), nil)
	if r.status != 201 {
		t.Fatalf("create show: %d %s", r.status, r.body)
	}
	created := r.json(t)
	show := created["id"].(string)
	if created["status"] != "on_sale" || created["starts_at"] != starts.UTC().Format(time.RFC3339) {
		t.Fatalf("created show: %s", r.body)
	}
	if got := a.do("GET", "/api/v1/shows/"+show, "", nil, nil).json(t); !reflect.DeepEqual(got, created) {
		t.Errorf("201 body differs from GET /shows/{id}:\n%v\n%v", created, got)
	}
	if r := a.do("POST", "/api/v1/admin/shows", staff, p.showBody(starts.Add(30*time.Minute), now, starts, 3700), nil); r.status != 409 || r.code() != "CONFLICT" {
		t.Errorf("overlapping show: %d %s", r.status, r.body)
	}
	noPrices := p.showBody(starts.Add(24*time.Hour), now, starts.Add(23*time.Hour), 3700)
	noPrices["prices"] = []any{}
	if r := a.do("POST", "/api/v1/admin/shows", staff, noPrices, nil); r.status != 400 {
		t.Errorf("show without prices: %d %s", r.status, r.body)
	}
	if r := a.do("POST", "/api/v1/admin/shows", staff, p.showBody(now.Add(-time.Hour), now.Add(-3*time.Hour), now.Add(-2*time.Hour), 3700), nil); r.status != 400 {
		t.Errorf("show in the past: %d %s", r.status, r.body)
	}
	seats := a.freeSeats(show, 3)
	o := a.do("POST", "/api/v1/shows/"+show+"/orders", buyer, map[string]any{"seat_ids": seats[:2]}, nil)
	if o.status != 201 || o.json(t)["total_minor"] != 7400.0 {
		t.Fatalf("order at the staff's price: %d %s", o.status, o.body)
	}

	r = a.do("PATCH", "/api/v1/admin/shows/"+show, staff, map[string]any{"prices": p.showBody(starts, now, starts, 4000)["prices"]}, nil)
	if r.status != 200 {
		t.Fatalf("PATCH prices: %d %s", r.status, r.body)
	}
	r = a.do("POST", "/api/v1/admin/shows/"+show+"/close-sale", staff, nil, nil)
	if r.status != 200 || r.json(t)["status"] != "closed" {
		t.Fatalf("close-sale: %d %s", r.status, r.body)
	}
	if o := a.do("POST", "/api/v1/shows/"+show+"/orders", buyer, map[string]any{"seat_ids": seats[2:]}, nil); o.status != 422 || o.code() != "NOT_ON_SALE" {
		t.Fatalf("order after close-sale: %d %s", o.status, o.body)
	}
	// close-sale then open-sale is one undo (API.md: open-sale -> on_sale now); the
	// window that passed reopens up to the start
	if r := a.do("POST", "/api/v1/admin/shows/"+show+"/open-sale", staff, nil, nil); r.status != 200 || r.json(t)["status"] != "on_sale" {
		t.Errorf("open-sale after close-sale: %d %s", r.status, r.body)
	}
	later := starts.Add(-30 * time.Minute).Format(time.RFC3339)
	if r := a.do("PATCH", "/api/v1/admin/shows/"+show, staff, map[string]any{"sale_closes_at": later}, nil); r.status != 200 || r.json(t)["status"] != "on_sale" {
		t.Fatalf("PATCH reopening the window: %d %s", r.status, r.body)
	}
	o = a.do("POST", "/api/v1/shows/"+show+"/orders", buyer, map[string]any{"seat_ids": seats[2:]}, nil)
	if o.status != 201 || o.json(t)["total_minor"] != 4000.0 {
		t.Fatalf("order at the new price: %d %s", o.status, o.body)
	}
	for _, bad := range []struct {
		path string
		body any
		want int
	}{
		{"/api/v1/admin/shows/987654321", map[string]any{"purchase_limit": 5}, 404},
		{"/api/v1/admin/shows/x1", map[string]any{"purchase_limit": 5}, 404},
		{"/api/v1/admin/shows/" + show, map[string]any{"purchase_limit": 0}, 400},
		{"/api/v1/admin/shows/" + show, map[string]any{"purchase_limit": "4"}, 400},
		{"/api/v1/admin/shows/" + show, map[string]any{"sale_opens_at": "tomorrow"}, 400},
		{"/api/v1/admin/shows/" + show, map[string]any{"prices": []map[string]any{{"zone": p.zones[0], "price_minor": -1}}}, 400},
		{"/api/v1/admin/shows/" + show, map[string]any{"sale_closes_at": starts.Add(time.Minute).Format(time.RFC3339)}, 400},
		{"/api/v1/admin/shows/" + show, map[string]any{"colour": "red"}, 400},
	} {
		if r := a.do("PATCH", bad.path, staff, bad.body, nil); r.status != bad.want {
			t.Errorf("PATCH %s %v: %d %s, want %d", bad.path, bad.body, r.status, r.body, bad.want)
		}
	}

	// a sale that opens in two hours
	starts2 := starts.Add(24 * time.Hour)
	r = a.do("POST", "/api/v1/admin/shows", staff, p.showBody(starts2, now.Add(2*time.Hour), starts2.Add(-time.Hour), 3900), nil)
	if r.status != 201 || r.json(t)["status"] != "scheduled" {
		t.Fatalf("create a show opening later: %d %s", r.status, r.body)
	}
	later2 := r.json(t)["id"].(string)
	seats2 := a.freeSeats(later2, 1)
	if o := a.do("POST", "/api/v1/shows/"+later2+"/orders", buyer, map[string]any{"seat_ids": seats2}, nil); o.status != 422 || o.code() != "NOT_ON_SALE" {
		t.Fatalf("order before the sale opens: %d %s", o.status, o.body)
	}
	a.clock.Set(2*time.Hour + time.Second)
	if st := a.do("GET", "/api/v1/shows/"+later2, "", nil, nil).json(t)["status"]; st != "on_sale" {
		t.Fatalf("after sale_opens_at the show reads %v", st)
	}
	if o := a.do("POST", "/api/v1/shows/"+later2+"/orders", buyer, map[string]any{"seat_ids": seats2}, nil); o.status != 201 || o.json(t)["total_minor"] != 3900.0 {
		t.Fatalf("order after the sale opened by itself: %d %s", o.status, o.body)
	}
}
