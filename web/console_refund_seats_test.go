package web

import (
	"net/url"
	"strings"
	"testing"

	"seatflow/services"
)

// TestConsoleRefundSeats_TickedSeatsOnly: the staff order page of a paid order of three
// seats offers a box per seat; refunding the ticked one (reason and confirmation given)
// redirects with the seats notice, keeps the order paid, frees that seat, and the page
// then lists the refund (amount, who, reason, seat) and offers boxes for the other two
// only; a seat value that is not a number is refused (400) and changes nothing.
func TestConsoleRefundSeats_TickedSeatsOnly(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	show, seats := a.onSaleShow(3)
	buyer := a.newUser()
	no := a.paidOrderOf(show, buyer, seats)
	refunded := services.Money(int64(a.seatPricesOf(no, buyer)[seats[0]]), a.Cfg.Currency)
	page := "/admin/orders/" + no
	body := string(a.getPage(page, staff).body)
	for _, s := range seats {
		if !strings.Contains(body, `name="seat_ids" type="checkbox" value="`+s+`"`) {
			t.Fatalf("the order page offers no box for seat %s", s)
		}
	}
	if r := a.postPage(page, page+"/refund", staff, url.Values{"reason": {"x"}, "confirm": {"yes"}, "seat_ids": {"seven"}}); r.status != 400 ||
		!strings.Contains(string(r.body), "Tick seats of this order only") {
		t.Fatalf("a bad seat value: %d", r.status)
	}
	if st, _ := a.orderStatus(no); st != "paid" {
		t.Fatalf("order %s after a refused refund", st)
	}
	r := a.postPage(page, page+"/refund", staff, url.Values{"reason": {"seat broken"}, "confirm": {"yes"}, "seat_ids": {seats[0]}})
	if r.status != 303 || r.header.Get("Location") != page+"?refunded=seats" {
		t.Fatalf("refund of one seat: %d %s", r.status, r.header.Get("Location"))
	}
	if st, _ := a.orderStatus(no); st != "paid" {
		t.Fatalf("order %s after refunding one seat of three, want paid", st)
	}
	if got := a.seatStateFor(show, seats[0], staff); got != "free" {
		t.Errorf("refunded seat is %s", got)
	}
	body = string(a.getPage(page+"?refunded=seats", staff).body)
	for _, want := range []string{"Seats refunded", "refunds-table", "seat broken", a.accounts["staff"].Email, refunded, "seat-refunded"} {
		if !strings.Contains(body, want) {
			t.Errorf("the order page after the refund lacks %q", want)
		}
	}
	if strings.Contains(body, `value="`+seats[0]+`"`) || !strings.Contains(body, `value="`+seats[1]+`"`) {
		t.Errorf("the refund form should offer the two kept seats only")
	}
}
