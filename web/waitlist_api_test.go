package web

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

// tinyShow creates a hall of the given layout and a show of it on sale now (limit 4,
// every zone priced 5000), through the staff API, and returns the show's id and its
// seats' ids by label.
func (a *testApp) tinyShow(name, layout string, extra map[string]any) (string, map[string]string) {
	a.t.Helper()
	staff := a.demoToken("staff")
	r := a.do("POST", "/api/v1/admin/halls", staff, map[string]any{"name": name, "layout": layout}, nil)
	if r.status != 201 {
		a.t.Fatalf("create hall: %d %s", r.status, r.body)
	}
	hall := r.json(a.t)["id"].(string)
	r = a.do("POST", "/api/v1/admin/movies", staff, map[string]any{"title": name + " Feature", "runtime_min": 100}, nil)
	if r.status != 201 {
		a.t.Fatalf("create movie: %d %s", r.status, r.body)
	}
	now := a.clock.Now()
	starts := now.Add(48 * time.Hour).Truncate(time.Hour)
	body := map[string]any{"movie_id": r.json(a.t)["id"], "hall_id": hall,
		"starts_at": starts.Format(time.RFC3339), "sale_opens_at": now.Add(-time.Hour).Format(time.RFC3339),
		"sale_closes_at": starts.Add(-time.Hour).Format(time.RFC3339), "prices": []map[string]any{{"zone": "standard", "price_minor": 5000}}, "purchase_limit": 4}
	for k, v := range extra {
		body[k] = v
	}
	r = a.do("POST", "/api/v1/admin/shows", staff, body, nil)
	if r.status != 201 {
		a.t.Fatalf("create show: %d %s", r.status, r.body)
	}
	show := r.json(a.t)["id"].(string)
	ids := map[string]string{}
	for _, s := range a.seatMap(show) {
		ids[s.Label] = s.ID
	}
	return show, ids
}

// waitFor polls the buyer's place until its status is want (the lists are served by the
// app's own runner, on seat events), failing after 10 s.
func (a *testApp) waitFor(show, token, want string) map[string]any {
	a.t.Helper()
	var last map[string]any
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		last = a.do("GET", "/api/v1/shows/"+show+"/waitlist", token, nil, nil).json(a.t)
		if last["status"] == want {
			return last
		}
	}
	a.t.Fatalf("the place never read %q: %v", want, last)
	return nil
}

// TestWaitlist_API walks the waiting list as API.md describes it: a sold-out show's
// buyers join (one place each, quantity within the limit, zone optional); a cancel
// frees seats and the app serves the places in order by itself, each offer a pending
// order in the buyer's orders; leaving cancels a pending offer; with seats free, joining
// is refused (book them); staff read the whole list, customers may not.
func TestWaitlist_API(t *testing.T) {
	a := newTestApp(t, nil)
	show, ids := a.tinyShow("Waitlist Room", "SSSS", nil)
	path := "/api/v1/shows/" + show + "/waitlist"
	first := a.newUser()
	r := a.do("POST", "/api/v1/shows/"+show+"/orders", first, map[string]any{"seat_ids": []string{ids["A1"], ids["A2"], ids["A3"], ids["A4"]}}, nil)
	if r.status != 201 {
		t.Fatalf("sell out: %d %s", r.status, r.body)
	}
	sold := r.json(t)["order_no"].(string)

	two, three, late := a.newUser(), a.newUser(), a.newUser()
	if r := a.do("GET", path, two, nil, nil); r.status != 404 {
		t.Fatalf("read before joining: %d %s", r.status, r.body)
	}
	for _, bad := range []map[string]any{{"quantity": 0}, {"quantity": 5}, {"quantity": 2, "zone": "balcony"}, {}} {
		if r := a.do("POST", path, two, bad, nil); r.status != 400 || r.code() != "INVALID_REQUEST" {
			t.Errorf("join with %v: %d %s", bad, r.status, r.body)
		}
	}
	e2 := a.do("POST", path, two, map[string]any{"quantity": 2}, nil)
	if e2.status != 201 || e2.json(t)["status"] != "waiting" || e2.json(t)["position"] != 1.0 || e2.json(t)["zone"] != nil {
		t.Fatalf("join: %d %s", e2.status, e2.body)
	}
	if r := a.do("POST", path, two, map[string]any{"quantity": 1}, nil); r.status != 409 {
		t.Fatalf("a second place: %d %s", r.status, r.body)
	}
	if e3 := a.do("POST", path, three, map[string]any{"quantity": 2, "zone": "standard"}, nil).json(t); e3["position"] != 2.0 || e3["zone"] != "standard" {
		t.Fatalf("second place: %v", e3)
	}

	// the first buyer cancels: both 2-seat places get offers, in order, with no call
	if r := a.do("POST", "/api/v1/orders/"+sold+"/cancel", first, nil, nil); r.status != 200 {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	o2 := a.waitFor(show, two, "offered")
	o3 := a.waitFor(show, three, "offered")
	for _, o := range []struct {
		token string
		place map[string]any
	}{{two, o2}, {three, o3}} {
		order := a.do("GET", "/api/v1/orders/"+o.place["order_no"].(string), o.token, nil, nil).json(t)
		if order["status"] != "pending" || len(order["seats"].([]any)) != 2 || o.place["offer_expires_at"] != order["expires_at"] {
			t.Fatalf("the offer's order: %v (place %v)", order, o.place)
		}
		expires, _ := time.Parse(time.RFC3339, order["expires_at"].(string))
		if d := expires.Sub(a.clock.Now()); d < 9*time.Minute || d > 10*time.Minute {
			t.Errorf("the offer holds for %v, want 10 minutes", d)
		}
	}
	// leaving cancels the pending offer: its seats are free again, and with seats free a
	// newcomer is told to book them
	left := a.do("DELETE", path, two, nil, nil)
	if left.status != 200 || left.json(t)["status"] != "left" {
		t.Fatalf("leave: %d %s", left.status, left.body)
	}
	if order := a.do("GET", "/api/v1/orders/"+o2["order_no"].(string), two, nil, nil).json(t); order["status"] != "cancelled" {
		t.Fatalf("the offer after leaving: %v", order)
	}
	if r := a.do("POST", path, late, map[string]any{"quantity": 2}, nil); r.status != 409 || r.code() != "CONFLICT" {
		t.Fatalf("join with seats free: %d %s", r.status, r.body)
	}
	staff := a.demoToken("staff")
	list := a.do("GET", "/api/v1/admin/shows/"+show+"/waitlist", staff, nil, nil)
	entries, _ := list.json(t)["entries"].([]any)
	if list.status != 200 || len(entries) != 2 || entries[0].(map[string]any)["email"] == "" {
		t.Fatalf("staff list: %d %s", list.status, list.body)
	}
	if r := a.do("GET", "/api/v1/admin/shows/"+show+"/waitlist", three, nil, nil); r.status != 403 {
		t.Fatalf("a customer reading the staff list: %d", r.status)
	}
	// the console's show page lists the places, with the buyers and their offers
	page := a.getPage("/admin/shows/"+show, staff)
	email := entries[1].(map[string]any)["email"].(string)
	if page.status != 200 || !strings.Contains(string(page.body), "Waiting list") || !strings.Contains(string(page.body), email) ||
		!strings.Contains(string(page.body), o3["order_no"].(string)) {
		t.Fatalf("the console's show page: %d, lacks the list, %s or the offer", page.status, email)
	}
}

// TestWaitlist_RoomCannotBeSkipped: with a show's waiting room on and every seat held, a
// buyer who never joined the room is refused the waiting list (403 NOT_ADMITTED, in the
// contract's error shape, and nothing changes), and the list's join form sends them to
// the queue; a place joined while the room was off gets no offer once it is on, nor
// keeps seats back from admitted buyers; an admitted buyer joins the list (the room's
// cookie or Admission-Token) and gets the offer when the holder cancels.
func TestWaitlist_RoomCannotBeSkipped(t *testing.T) {
	a := newTestApp(t, nil)
	show, ids := a.tinyShow("Skip Room", "SSSS", nil)
	staff := a.demoToken("staff")
	path := "/api/v1/shows/" + show
	holder, early, stranger, admitted, late := a.newUser(), a.newUser(), a.newUser(), a.newUser(), a.newUser()
	r := a.do("POST", path+"/orders", holder, map[string]any{"seat_ids": []string{ids["A1"], ids["A2"], ids["A3"], ids["A4"]}}, nil)
	if r.status != 201 {
		t.Fatalf("hold every seat: %d %s", r.status, r.body)
	}
	held := r.json(t)["order_no"].(string)
	if r := a.do("POST", path+"/waitlist", early, map[string]any{"quantity": 2}, nil); r.status != 201 {
		t.Fatalf("join the list while the room is off: %d %s", r.status, r.body)
	}
	if r := a.do("PATCH", "/api/v1/admin/shows/"+show, staff, map[string]any{"waiting_room": true, "admit_per_minute": 6000}, nil); r.status != 200 {
		t.Fatalf("turn the room on: %d %s", r.status, r.body)
	}
	// the scenario: no admission, every seat held
	if r := a.do("POST", path+"/orders", stranger, map[string]any{"zone": "standard", "quantity": 2}, nil); r.status != 403 || r.code() != "NOT_ADMITTED" {
		t.Fatalf("order without an admission: %d %s", r.status, r.body)
	}
	r = a.do("POST", path+"/waitlist", stranger, map[string]any{"quantity": 2}, nil)
	if r.status != 403 || r.code() != "NOT_ADMITTED" || r.json(t)["error"].(map[string]any)["message"] == "" {
		t.Fatalf("join the list without an admission: %d %s", r.status, r.body)
	}
	if r := a.do("GET", path+"/waitlist", stranger, nil, nil); r.status != 404 {
		t.Fatalf("the refused join left a place: %d %s", r.status, r.body)
	}
	// the show page's join form leads to the queue, not to a bare refusal
	form := a.postPage("/shows/"+show+"/queue", "/shows/"+show+"/waitlist", stranger, url.Values{"quantity": {"2"}})
	if form.status != 303 || form.header.Get("Location") != "/shows/"+show+"/queue" {
		t.Fatalf("the join form without an admission: %d to %q", form.status, form.header.Get("Location"))
	}
	if r := a.do("GET", path+"/waitlist", stranger, nil, nil); r.status != 404 {
		t.Fatalf("the refused form left a place: %d %s", r.status, r.body)
	}
	// an admitted buyer joins the list with their token
	q := a.do("POST", path+"/queue", admitted, nil, nil).json(t)
	if q["status"] != "admitted" {
		t.Fatalf("join the room: %v", q)
	}
	token := map[string]string{"Admission-Token": q["admission_token"].(string)}
	if r := a.do("POST", path+"/waitlist", admitted, map[string]any{"quantity": 2}, token); r.status != 201 || r.json(t)["position"] != 2.0 {
		t.Fatalf("an admitted buyer joins the list: %d %s", r.status, r.body)
	}
	// the holder cancels: the admitted place, second in line, gets the offer; the place
	// joined before the room was turned on gets none and keeps no seats back
	if r := a.do("POST", "/api/v1/orders/"+held+"/cancel", holder, nil, nil); r.status != 200 {
		t.Fatalf("cancel: %d %s", r.status, r.body)
	}
	offer := a.waitFor(show, admitted, "offered")
	if order := a.do("GET", "/api/v1/orders/"+offer["order_no"].(string), admitted, nil, nil).json(t); order["status"] != "pending" {
		t.Fatalf("the admitted buyer's offer: %v", order)
	}
	lq := a.do("POST", path+"/queue", late, nil, nil).json(t)
	if lq["status"] != "admitted" {
		t.Fatalf("a late buyer joins the room: %v", lq)
	}
	if r := a.do("POST", path+"/orders", late, map[string]any{"zone": "standard", "quantity": 2},
		map[string]string{"Admission-Token": lq["admission_token"].(string)}); r.status != 201 {
		t.Fatalf("an admitted buyer orders the seats left (the list kept them for a place without admission?): %d %s", r.status, r.body)
	}
	if p := a.do("GET", path+"/waitlist", early, nil, nil).json(t); p["status"] != "waiting" || p["order_no"] != nil {
		t.Fatalf("the place joined while the room was off: %v", p)
	}
	var n int
	if err := a.DB.Get(&n, `SELECT COUNT(*) FROM orders WHERE show_id = ? AND user_id IN
		(SELECT user_id FROM waitlist_entries WHERE show_id = ? AND status = 'waiting')`, show, show); err != nil || n != 0 {
		t.Fatalf("the place without an admission has %d orders (%v)", n, err)
	}
}
