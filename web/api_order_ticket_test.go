package web

import (
	"regexp"
	"testing"
)

var ticketRefJSON = regexp.MustCompile(`^SF1\.[A-Za-z0-9_-]{1,32}\.[A-Za-z0-9_-]{22}$`)

// orderJSONOf reads order no of token as GET /orders/{no} and as its entry in GET
// /orders gives it (both checked against openapi.json by a.do).
func (a *testApp) orderJSONOf(token, no string) (one, listed map[string]any) {
	a.t.Helper()
	r := a.do("GET", "/api/v1/orders/"+no, token, nil, nil)
	if r.status != 200 {
		a.t.Fatalf("GET order: %d %s", r.status, r.body)
	}
	one = r.json(a.t)
	l := a.do("GET", "/api/v1/orders", token, nil, nil)
	for _, o := range l.json(a.t)["orders"].([]any) {
		if m := o.(map[string]any); m["order_no"] == no {
			listed = m
		}
	}
	if listed == nil {
		a.t.Fatalf("order %s not in the list: %s", no, l.body)
	}
	return one, listed
}

// TestOrderJSON_TicketRefOnPaidOrdersOnly: a buyer's order JSON (one order and the list)
// has ticket_ref and ticket_url only while the order is paid: not while pending, not once
// refunded, not on a cancelled order; the reference names the order and is the one its
// ticket page shows (GET one order also has its ticket_code, the list does not), and
// ticket_url serves the PNG to the owner. Ended orders carry
// end_reason (cancelled_by_buyer, refunded_by_staff), live ones none.
func TestOrderJSON_TicketRefOnPaidOrdersOnly(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(2)
	buyer := a.newUser()
	paidNo := a.orderSeats(buyer, show, seats[:1])
	cancelNo := a.orderSeats(buyer, show, seats[1:])

	check := func(step, no string, wantRef bool, wantEnd string) string {
		t.Helper()
		one, listed := a.orderJSONOf(buyer, no)
		for name, m := range map[string]map[string]any{"GET order": one, "list": listed} {
			ref, hasRef := m["ticket_ref"].(string)
			url, hasURL := m["ticket_url"].(string)
			if hasRef != wantRef || hasURL != wantRef {
				t.Errorf("%s, %s: ticket_ref %q ticket_url %q, want present=%v", step, name, ref, url, wantRef)
			}
			if wantRef && (!ticketRefJSON.MatchString(ref) || ref[:4+len(no)] != "SF1."+no || url != "/orders/"+no+"/ticket.png") {
				t.Errorf("%s, %s: ticket_ref %q ticket_url %q do not name order %s", step, name, ref, url, no)
			}
			if end, _ := m["end_reason"].(string); end != wantEnd {
				t.Errorf("%s, %s: end_reason %q, want %q", step, name, end, wantEnd)
			}
		}
		ref, _ := one["ticket_ref"].(string)
		return ref
	}

	check("pending", paidNo, false, "")
	a.payOrder(buyer, paidNo)
	ref := check("paid", paidNo, true, "")
	page := a.getPage("/orders/"+paidNo+"/ticket", buyer)
	if ticketRefOn(page.body) != ref {
		t.Errorf("the ticket page shows %q, the JSON %q", ticketRefOn(page.body), ref)
	}
	// GET one order also carries the short code, the one the ticket page shows
	one, listed := a.orderJSONOf(buyer, paidNo)
	onPage := ticketCodeText.FindSubmatch(page.body)
	if code, _ := one["ticket_code"].(string); onPage == nil || code != string(onPage[1]) {
		t.Errorf("GET order: ticket_code %q, the ticket page shows %q", code, onPage)
	}
	if _, has := listed["ticket_code"]; has {
		t.Errorf("the list carries ticket_code: %v", listed["ticket_code"])
	}
	if png := a.do("GET", "/orders/"+paidNo+"/ticket.png", buyer, nil, nil); png.status != 200 || png.header.Get("Content-Type") != "image/png" {
		t.Errorf("ticket_url with the Bearer token: %d %s", png.status, png.header.Get("Content-Type"))
	}

	if r := a.do("POST", "/api/v1/orders/"+cancelNo+"/cancel", buyer, nil, nil); r.status != 200 || r.json(t)["end_reason"] != "cancelled_by_buyer" {
		t.Errorf("cancel: %d %s, want end_reason cancelled_by_buyer", r.status, r.body)
	}
	check("cancelled", cancelNo, false, "cancelled_by_buyer")

	staff := a.demoToken("staff")
	if r := a.do("POST", "/api/v1/admin/orders/"+paidNo+"/refund", staff, map[string]string{"reason": "buyer was ill"}, nil); r.status != 200 {
		t.Fatalf("refund: %d %s", r.status, r.body)
	}
	check("refunded", paidNo, false, "refunded_by_staff")
}
