package web

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestAdminShows_CancelAsksThenSummarises cancels a show from the console: its page
// leads to a confirmation step; without the tick nothing happens; with it the pending
// order is cancelled (seats released), the paid order refunded, and the show's page
// says so. Open and close sale now answer on the same page.
func TestAdminShows_CancelAsksThenSummarises(t *testing.T) {
	a := newTestApp(t, nil)
	staff, buyer := a.demoToken("staff"), a.newUser()
	s := a.consoleSession(staff)
	p := a.pickCatalog(staff)
	date := a.localDate(20)
	st, loc, body := s.post("/admin/shows", showFormValues(p, p.movie, date, "19:30"))
	m := showURL.FindStringSubmatch(loc)
	if st != 303 || m == nil {
		t.Fatalf("create show: %d %s %s", st, loc, body)
	}
	show := m[1]

	if st, loc, _ := s.post("/admin/shows/"+show+"/close-sale", url.Values{}); st != 303 || loc != "/admin/shows/"+show+"?done=closed" {
		t.Fatalf("close sale now: %d %s", st, loc)
	}
	if _, page := s.get("/admin/shows/" + show + "?done=closed"); !strings.Contains(page, `id="show-status">closed`) {
		t.Errorf("after close sale now the page does not read closed")
	}
	// open sale now undoes close sale now: on sale again until the show starts
	if st, loc, _ := s.post("/admin/shows/"+show+"/open-sale", url.Values{}); st != 303 || loc != "/admin/shows/"+show+"?done=opened" {
		t.Fatalf("open sale now after close sale now: %d %s", st, loc)
	}
	if _, page := s.get("/admin/shows/" + show + "?done=opened"); !strings.Contains(page, `id="show-status">on sale`) {
		t.Errorf("after open sale now the page does not read on sale")
	}
	edit := url.Values{"opens_date": {a.localDate(0)}, "opens_time": {"00:00"},
		"closes_date": {date}, "closes_time": {"18:00"}, "purchase_limit": {"6"}}
	for _, z := range p.zones {
		edit.Set("price_"+z, "50")
	}
	if st, loc, _ := s.post("/admin/shows/"+show, edit); st != 303 || loc != "/admin/shows/"+show+"?done=saved" {
		t.Fatalf("edit the window: %d %s", st, loc)
	}
	if _, page := s.get("/admin/shows/" + show); !strings.Contains(page, `id="show-status">on sale`) || !strings.Contains(page, "6 seats per buyer") {
		t.Errorf("after the edit the show is not on sale with limit 6")
	}
	edit.Set("price_"+p.zones[0], "-1")
	if st, _, page := s.post("/admin/shows/"+show, edit); st != 400 || !strings.Contains(page, `value="-1"`) {
		t.Errorf("a bad price: %d", st)
	}

	seats := a.freeSeats(show, 3)
	pending := a.do("POST", "/api/v1/shows/"+show+"/orders", buyer, map[string]any{"seat_ids": seats[:1]}, nil)
	paid := a.do("POST", "/api/v1/shows/"+show+"/orders", buyer, map[string]any{"seat_ids": seats[1:3]}, nil)
	if pending.status != 201 || paid.status != 201 {
		t.Fatalf("orders: %d %s / %d %s", pending.status, pending.body, paid.status, paid.body)
	}
	paidNo := paid.json(t)["order_no"].(string)
	pay := a.do("POST", "/api/v1/orders/"+paidNo+"/pay", buyer, nil, nil)
	if pay.status != 200 {
		t.Fatalf("pay: %d %s", pay.status, pay.body)
	}
	if _, err := a.Payments.DemoDecide(context.Background(), pay.json(t)["payment_id"].(string), true); err != nil {
		t.Fatal(err)
	}

	st, page := s.get("/admin/shows/" + show + "/cancel")
	if st != 200 || !strings.Contains(page, `name="confirm"`) || !strings.Contains(page, "1 seat held now") || !strings.Contains(page, "2 seats sold now") {
		t.Fatalf("confirmation page: %d\n%s", st, page)
	}
	if st, _, page := s.post("/admin/shows/"+show+"/cancel", url.Values{"reason": {"Projector broken"}}); st != 400 ||
		!strings.Contains(page, "Tick the box") || !strings.Contains(page, `value="Projector broken"`) {
		t.Fatalf("cancel without the tick: %d", st)
	}
	if got := a.do("GET", "/api/v1/shows/"+show, "", nil, nil).json(t)["status"]; got != "on_sale" {
		t.Fatalf("the show after an unconfirmed cancel: %v", got)
	}
	st, loc, _ = s.post("/admin/shows/"+show+"/cancel", url.Values{"reason": {"Projector broken"}, "confirm": {"yes"}})
	if st != 303 || !regexp.MustCompile(`^/admin/shows/`+show+`\?done=cancelled&cancelled_orders=1&refunded_orders=1$`).MatchString(loc) {
		t.Fatalf("cancel: %d %s", st, loc)
	}
	_, page = s.get(loc)
	if !strings.Contains(page, "Show cancelled: 1 pending order cancelled, 1 paid order refunded.") || !strings.Contains(page, `id="show-status">cancelled`) {
		t.Errorf("the show page after cancelling lacks the summary:\n%s", page)
	}
	if strings.Contains(page, "Open sale now") {
		t.Errorf("a cancelled show still offers sale control")
	}
	orders := map[string]string{pending.json(t)["order_no"].(string): "cancelled", paidNo: "refunded"}
	for no, want := range orders {
		if got := a.do("GET", "/api/v1/orders/"+no, buyer, nil, nil).json(t)["status"]; got != want {
			t.Errorf("order %s is %v, want %s", no, got, want)
		}
	}
	for _, id := range seats {
		if st := a.seatState(show, id); st != "free" {
			t.Errorf("seat %s is %s after the cancel", id, st)
		}
	}
}
