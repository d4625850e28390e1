package web

import (
	"bytes"
	"encoding/json"
	"html"
	"image"
	_ "image/png" // image.Decode reads the ticket's QR code
	"regexp"
	"slices"
	"strings"
	"testing"

	"seatflow/services"
	"seatflow/services/orders"
)

var ticketRefText = regexp.MustCompile(`data-ticket-ref>(SF1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22})<`)

// ticketRefOn reads the ticket reference a page shows, "" when it shows none.
func ticketRefOn(body []byte) string {
	if m := ticketRefText.FindSubmatch(body); m != nil {
		return string(m[1])
	}
	return ""
}

// seatLabels maps seat ids of show to their labels, in the order of ids.
func (a *testApp) seatLabels(show string, ids []string) []string {
	byID := map[string]string{}
	for _, s := range a.seatMap(show) {
		byID[s.ID] = s.Label
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = byID[id]
	}
	return out
}

// TestTicket_PaidOrderShowsTicketToItsOwnerOnly: a pending order has no ticket (page,
// printable page and QR code 404); once paid, its owner sees the ticket on the order
// page (movie, hall, seats, QR code with alt text, reference, print link), the
// printable page and a QR code PNG that decodes; another buyer gets 404 for each, and a
// signed-out visitor is sent to sign in.
func TestTicket_PaidOrderShowsTicketToItsOwnerOnly(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(2)
	labels := a.seatLabels(show, seats)
	buyer, other := a.newUser(), a.newUser()
	no := a.orderSeats(buyer, show, seats)
	orderURL, ticketURL, pngURL := "/orders/"+no, "/orders/"+no+"/ticket", "/orders/"+no+"/ticket.png"

	pending := a.getPage(orderURL, buyer)
	if pending.status != 200 || ticketRefOn(pending.body) != "" || bytes.Contains(pending.body, []byte("ticket.png")) || bytes.Contains(pending.body, []byte("Print ticket")) {
		t.Fatalf("pending order page (%d) shows a ticket:\n%s", pending.status, pending.body)
	}
	for _, p := range []string{ticketURL, pngURL} {
		if r := a.getPage(p, buyer); r.status != 404 {
			t.Errorf("GET %s of a pending order: %d, want 404", p, r.status)
		}
	}

	a.payOrder(buyer, no)
	paid := a.getPage(orderURL, buyer)
	ref := ticketRefOn(paid.body)
	if paid.status != 200 || ref == "" {
		t.Fatalf("paid order page (%d) shows no ticket reference:\n%s", paid.status, paid.body)
	}
	if !strings.HasPrefix(ref, "SF1."+no+".") {
		t.Errorf("ticket reference %q does not name order %s", ref, no)
	}
	page := html.UnescapeString(string(paid.body))
	var movie, hall string
	if r := a.do("GET", "/api/v1/shows/"+show, "", nil, nil); r.status == 200 {
		var v struct {
			Movie struct{ Title string }
			Hall  struct{ Name string }
		}
		_ = json.Unmarshal(r.body, &v)
		movie, hall = v.Movie.Title, v.Hall.Name
	}
	ticket := page[strings.Index(page, `class="ticket"`):]
	for _, want := range append([]string{
		`src="` + pngURL + `"`, `alt="QR code of ticket reference ` + ref + `"`,
		`href="` + ticketURL + `"`, "Print ticket", movie, hall, "<time datetime=",
	}, labels...) {
		if want == "" || !strings.Contains(ticket, want) {
			t.Errorf("the ticket on the paid order page lacks %q", want)
		}
	}

	png := a.getPage(pngURL, buyer)
	if png.status != 200 || png.header.Get("Content-Type") != "image/png" || !strings.Contains(png.header.Get("Cache-Control"), "private") {
		t.Fatalf("GET %s: %d %s, Cache-Control %q", pngURL, png.status, png.header.Get("Content-Type"), png.header.Get("Cache-Control"))
	}
	img, format, err := image.Decode(bytes.NewReader(png.body))
	if err != nil {
		t.Fatalf("the QR code does not decode: %v", err)
	}
	if b := img.Bounds(); format != "png" || b.Dx() != b.Dy() || b.Dx() < 200 || b.Dx() > 1000 {
		t.Errorf("QR code is a %s of %v, want a square PNG of 200..1000 pixels", format, b)
	}

	printable := a.getPage(ticketURL, buyer)
	if printable.status != 200 || ticketRefOn(printable.body) != ref || !bytes.Contains(printable.body, []byte(`src="`+pngURL+`"`)) {
		t.Fatalf("printable ticket (%d) lacks the reference %s or the QR code:\n%s", printable.status, ref, printable.body)
	}
	if bytes.Contains(printable.body, []byte(`class="order-actions"`)) || bytes.Contains(printable.body, []byte("Print ticket</a>")) {
		t.Error("the printable ticket carries more than the ticket")
	}

	for _, p := range []string{ticketURL, pngURL} {
		if r := a.getPage(p, other); r.status != 404 || bytes.Contains(r.body, []byte(ref)) {
			t.Errorf("GET %s as another buyer: %d, want 404 without the reference", p, r.status)
		}
		if r := a.getPage(p, ""); r.status != 303 || !strings.HasPrefix(r.header.Get("Location"), "/login") {
			t.Errorf("GET %s signed out: %d to %q, want 303 to sign in", p, r.status, r.header.Get("Location"))
		}
	}
	if r := a.getPage("/orders/NO-SUCH-ORDER/ticket.png", buyer); r.status != 404 {
		t.Errorf("QR code of an unknown order: %d, want 404", r.status)
	}
}

// TestTicket_StaffCheck: staff check a paid order's ticket (valid, with show and
// seats); forged, moved, malformed and unknown references are 404; customers and
// anonymous callers are refused; once refunded the same ticket is not valid and the
// buyer's page shows no ticket.
func TestTicket_StaffCheck(t *testing.T) {
	a := newTestApp(t, nil)
	staff, admin := a.demoToken("staff"), a.demoToken("admin")
	show, seats := a.onSaleShow(3)
	buyer := a.newUser()
	no := a.orderSeats(buyer, show, seats[:2])
	a.payOrder(buyer, no)
	ref := ticketRefOn(a.getPage("/orders/"+no, buyer).body)
	if ref == "" {
		t.Fatal("the paid order shows no ticket reference")
	}
	labels := a.seatLabels(show, seats[:2])

	check := func(token, r string) apiResp {
		t.Helper()
		return a.do("GET", "/api/v1/admin/tickets/"+r, token, nil, nil)
	}
	for _, tok := range []string{staff, admin} {
		r := check(tok, ref)
		var v struct {
			Valid   bool
			OrderNo string `json:"order_no"`
			ShowID  string `json:"show_id"`
			Seats   []string
			Status  string
		}
		if r.status != 200 || json.Unmarshal(r.body, &v) != nil {
			t.Fatalf("check a paid ticket: %d %s", r.status, r.body)
		}
		slices.Sort(v.Seats)
		slices.Sort(labels)
		if !v.Valid || v.OrderNo != no || v.ShowID != show || !slices.Equal(v.Seats, labels) || v.Status != "paid" {
			t.Errorf("check a paid ticket: %s, want valid, order %s, show %s, seats %v", r.body, no, show, labels)
		}
	}

	// another paid order of the same buyer: its number with the first ticket's signature
	no2 := a.orderSeats(buyer, show, seats[2:3])
	a.payOrder(buyer, no2)
	sig := ref[strings.LastIndexByte(ref, '.')+1:]
	flipped := []byte(sig)
	flipped[3] = 'A'
	if sig[3] == 'A' {
		flipped[3] = 'B'
	}
	first := services.Order{OrderNo: no, ShowID: mustID(t, show)}
	for _, l := range labels {
		first.Seats = append(first.Seats, services.OrderSeat{Label: l})
	}
	forged := map[string]string{
		"signature changed":          "SF1." + no + "." + string(flipped),
		"moved to another order":     "SF1." + no2 + "." + sig,
		"signed with another secret": orders.TicketRef([]byte("not the server's secret"), &first),
		"unknown order":              "SF1.0ZZZZZZZZZZZZZZ." + sig,
		"malformed":                  "not-a-ticket",
		"lower-case order number":    "SF1." + strings.ToLower(no) + "." + sig,
		"signature of 16 zero bytes": "SF1." + no + ".AAAAAAAAAAAAAAAAAAAAAA",
		"version of another format":  "SF2." + no + "." + sig,
		"order number alone":         no,
	}
	for name, r := range forged {
		t.Run(name, func(t *testing.T) {
			if res := check(staff, r); res.status != 404 || res.code() != "NOT_FOUND" {
				t.Errorf("check %q: %d %s, want 404 NOT_FOUND", r, res.status, res.body)
			}
		})
	}
	if r := check(a.newUser(), ref); r.status != 403 {
		t.Errorf("a customer checks a ticket: %d, want 403", r.status)
	}
	if r := check("", ref); r.status != 401 {
		t.Errorf("an anonymous caller checks a ticket: %d, want 401", r.status)
	}

	if r := a.do("POST", "/api/v1/admin/orders/"+no+"/refund", staff, map[string]string{"reason": "ticket test"}, nil); r.status != 200 {
		t.Fatalf("refund: %d %s", r.status, r.body)
	}
	r := check(staff, ref)
	if m := r.json(t); r.status != 200 || m["valid"] != false || m["status"] != "refunded" || m["order_no"] != no || m["seats"] != nil {
		t.Errorf("check a refunded order's ticket: %d %s, want valid false, status refunded", r.status, r.body)
	}
	if p := a.getPage("/orders/"+no, buyer); p.status != 200 || ticketRefOn(p.body) != "" || bytes.Contains(p.body, []byte("ticket.png")) {
		t.Errorf("refunded order page (%d) still shows the ticket", p.status)
	}
	for _, p := range []string{"/orders/" + no + "/ticket", "/orders/" + no + "/ticket.png"} {
		if r := a.getPage(p, buyer); r.status != 404 {
			t.Errorf("GET %s of a refunded order: %d, want 404", p, r.status)
		}
	}
}
