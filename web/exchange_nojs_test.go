package web

import (
	"net/url"

	"github.com/PuerkitoBio/goquery"
	"strings"
	"testing"
)

// TestPages_ExchangeWithoutScript: the order page offers "Change seats" while the order
// can change (and not once it ended); the picker, a plain page, ticks the order's seats
// as its own; its form, sent without JavaScript, moves the order (303 to the order page,
// which says so) and, refused, comes back with the reason and the seats as ticked.
func TestPages_ExchangeWithoutScript(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(4)
	buyer, other := a.newUser(), a.newUser()
	no := a.orderSeats(buyer, show, seats[:2])
	a.orderSeats(other, show, seats[2:3])
	if doc := a.pageDoc(t, "/orders/"+no, buyer); doc.Find(`[data-exchange-link]`).AttrOr("href", "") != "/orders/"+no+"/exchange" {
		t.Fatal("the order page offers no Change seats")
	}
	doc := a.pageDoc(t, "/orders/"+no+"/exchange", buyer)
	var ticked []string
	doc.Find(`.exchange-form input[name="seat"][checked]`).Each(func(_ int, s *goquery.Selection) { ticked = append(ticked, s.AttrOr("value", "")) })
	if strings.Join(sorted(ticked), ",") != strings.Join(sorted(seats[:2]), ",") {
		t.Errorf("the picker ticks %v, want %v", ticked, seats[:2])
	}
	page := "/orders/" + no + "/exchange"
	r := a.postPage(page, page, buyer, url.Values{"seat": {seats[0], seats[2]}})
	if r.status != 409 || !strings.Contains(string(r.body), "exchange-form") {
		t.Fatalf("a taken seat: %d, want the picker again with 409", r.status)
	}
	r = a.postPage(page, page, buyer, url.Values{"seat": {seats[0], seats[3]}})
	if r.status != 303 || r.header.Get("Location") != "/orders/"+no+"?exchanged=1" {
		t.Fatalf("the exchange: %d to %q", r.status, r.header.Get("Location"))
	}
	if a.seatState(show, seats[1]) != "free" || a.seatState(show, seats[3]) != "held" {
		t.Errorf("after it: old %s, new %s", a.seatState(show, seats[1]), a.seatState(show, seats[3]))
	}
	if d := a.pageDoc(t, "/orders/"+no+"?exchanged=1", buyer); d.Find(`[data-exchanged]`).Length() != 1 {
		t.Error("the order page does not tell the exchange")
	}
	if r := a.do("POST", "/api/v1/orders/"+no+"/cancel", buyer, nil, nil); r.status != 200 {
		t.Fatal(r.status)
	}
	if d := a.pageDoc(t, "/orders/"+no, buyer); d.Find(`[data-exchange-link]`).Length() != 0 {
		t.Error("a cancelled order offers Change seats")
	}
}
