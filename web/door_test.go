package web

import (
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

var ticketCodeText = regexp.MustCompile(`data-ticket-code>([0-9A-Z]{5}-[0-9A-Z]{5})<`)

// ticketCodeOn is the ticket code ("K3M9P-QR7TX") shown on a ticket or order page body.
func ticketCodeOn(body []byte) string {
	if m := ticketCodeText.FindSubmatch(body); m != nil {
		return string(m[1])
	}
	return ""
}

// TestDoor_AdmitAPI: the first admission of a paid ticket is 200 with admitted true and
// the check then reports admitted_at and admitted_by; a second admission is 409
// ALREADY_ADMITTED naming the staff member; a door of another show gets 409 WRONG_SHOW;
// a bad body is 400 and admits nothing; customers are 403.
func TestDoor_AdmitAPI(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	show, seats := a.onSaleShow(2)
	other := "999999" // a door of another show
	buyer := a.newUser()
	no := a.orderSeats(buyer, show, seats)
	a.payOrder(buyer, no)
	ref := ticketRefOn(a.getPage("/orders/"+no, buyer).body)
	admit := "/api/v1/admin/tickets/" + ref + "/admit"

	if r := a.do("GET", "/api/v1/admin/tickets/"+ref, staff, nil, nil); r.status != 200 || r.json(t)["admitted_at"] != nil || r.json(t)["valid"] != true {
		t.Fatalf("check before admission: %d %s", r.status, r.body)
	}
	if r := a.do("POST", admit, a.newUser(), map[string]any{"show_id": show}, nil); r.status != 403 {
		t.Errorf("a customer admits: %d, want 403", r.status)
	}
	if r := a.do("POST", admit, staff, map[string]any{"show": show}, nil); r.status != 400 || r.code() != "INVALID_REQUEST" {
		t.Errorf("unknown field: %d %s, want 400", r.status, r.body)
	}
	if r := a.do("POST", admit, staff, map[string]any{"show_id": other}, nil); r.status != 409 || r.code() != "WRONG_SHOW" {
		t.Errorf("another show's door: %d %s, want 409 WRONG_SHOW", r.status, r.body)
	}
	r := a.do("POST", admit, staff, map[string]any{"show_id": show}, nil)
	if r.status != 200 || r.json(t)["admitted"] != true || r.json(t)["admitted_at"] == nil {
		t.Fatalf("first admission: %d %s", r.status, r.body)
	}
	by, _ := r.json(t)["admitted_by"].(string)
	again := a.do("POST", admit, staff, nil, nil)
	if again.status != 409 || again.code() != "ALREADY_ADMITTED" || by == "" || !strings.Contains(string(again.body), "already admitted at ") || !strings.Contains(string(again.body), "by "+by) {
		t.Fatalf("second admission: %d %s, want 409 ALREADY_ADMITTED by %q", again.status, again.body, by)
	}
	c := a.do("GET", "/api/v1/admin/tickets/"+ref, staff, nil, nil)
	if c.status != 200 || c.json(t)["admitted_at"] != r.json(t)["admitted_at"] || c.json(t)["admitted_by"] != by || c.json(t)["valid"] != false {
		t.Fatalf("check after admission: %d %s", c.status, c.body)
	}
	t.Logf("admitted by %q at %v; second scan: %s", by, r.json(t)["admitted_at"], again.body)
}

// TestDoor_FormWithoutJS: the door page's form works as a plain POST: a scanned URL
// carrying the reference admits it (the server-rendered green panel and count), the
// same reference again is the red "Already admitted at … by …", an empty or made-up
// reference is refused with the reason; the door page alone may use the camera.
func TestDoor_FormWithoutJS(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	show, seats := a.onSaleShow(1)
	buyer := a.newUser()
	no := a.orderSeats(buyer, show, seats)
	a.payOrder(buyer, no)
	ref := ticketRefOn(a.getPage("/orders/"+no, buyer).body)
	door := "/admin/shows/" + show + "/door"
	if p := a.getPage(door, staff); p.status != 200 || !strings.Contains(p.header.Get("Permissions-Policy"), "camera=(self)") {
		t.Fatalf("door page: %d, Permissions-Policy %q", p.status, p.header.Get("Permissions-Policy"))
	}
	if p := a.getPage("/admin/orders", staff); strings.Contains(p.header.Get("Permissions-Policy"), "camera=(self)") {
		t.Errorf("another console page may use the camera: %q", p.header.Get("Permissions-Policy"))
	}
	post := func(r string) string {
		t.Helper()
		res := a.postPage(door, "/admin/door", staff, url.Values{"ref": {r}, "show_id": {show}})
		if res.status != 200 {
			t.Fatalf("POST /admin/door %q: %d", r, res.status)
		}
		return html.UnescapeString(string(res.body))
	}
	cases := []struct{ name, ref, want string }{
		{"scanned URL admits", "https://cinema.example/t?ref=" + ref, `data-door-result="admitted"`},
		{"admitted again", ref, "Already admitted at "},
		{"empty", "  ", "No reference"},
		{"made up", "SF1.NOPE.AAAAAAAAAAAAAAAAAAAAAA", "Not a ticket of this cinema"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if body := post(c.ref); !strings.Contains(body, c.want) {
				t.Errorf("POST %q: the page lacks %q", c.ref, c.want)
			} else if c.name == "scanned URL admits" && !strings.Contains(body, "Admitted 1 of 1 seat<") {
				t.Errorf("the count after the first admission is not 1 of 1 seat")
			}
		})
	}
}

// TestDoor_CountsSeatsNotOrders: the door counts people: two paid orders of 2 and 3
// seats are 5 seats, and admitting the 2-seat order makes it "Admitted 2 of 5 seats"
// (counting orders said "1 of 2 tickets").
func TestDoor_CountsSeatsNotOrders(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	show, seats := a.onSaleShow(5)
	b1, b2 := a.newUser(), a.newUser()
	no1 := a.orderSeats(b1, show, seats[:2])
	a.payOrder(b1, no1)
	no2 := a.orderSeats(b2, show, seats[2:5])
	a.payOrder(b2, no2)
	door := "/admin/shows/" + show + "/door"
	countOn := regexp.MustCompile(`Admitted \d+ of \d+ (seats?|tickets?)`)
	if got := countOn.FindString(string(a.getPage(door, staff).body)); got != "Admitted 0 of 5 seats" {
		t.Errorf("before any admission the door says %q, want Admitted 0 of 5 seats", got)
	}
	ref := ticketRefOn(a.getPage("/orders/"+no1, b1).body)
	res := a.postPage(door, "/admin/door", staff, url.Values{"ref": {ref}, "show_id": {show}})
	if got := countOn.FindString(string(res.body)); res.status != 200 || got != "Admitted 2 of 5 seats" {
		t.Errorf("after admitting the 2-seat order: %d %q, want Admitted 2 of 5 seats", res.status, got)
	}
}

// TestDoor_AdmitByTicketCode: the ticket page and the order page show the ticket's short
// code; the door API admits by it typed in lower case without its hyphen; a code with a
// wrong check character is 404 saying so; the code at another show's door is 409
// WRONG_SHOW; the door page's typed field takes the code too (already admitted then).
func TestDoor_AdmitByTicketCode(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	show, seats := a.onSaleShow(2)
	buyer := a.newUser()
	no := a.orderSeats(buyer, show, seats)
	a.payOrder(buyer, no)
	code := ticketCodeOn(a.getPage("/orders/"+no+"/ticket", buyer).body)
	if code == "" || ticketCodeOn(a.getPage("/orders/"+no, buyer).body) != code {
		t.Fatalf("ticket page code %q, order page code %q", code, ticketCodeOn(a.getPage("/orders/"+no, buyer).body))
	}
	const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
	last := strings.IndexByte(alphabet, code[len(code)-1])
	wrong := code[:len(code)-1] + string(alphabet[(last+1)%32])
	typed := strings.ToLower(strings.ReplaceAll(code, "-", ""))
	admit := func(ref string, body any) apiResp {
		return a.do("POST", "/api/v1/admin/tickets/"+url.PathEscape(ref)+"/admit", staff, body, nil)
	}
	if r := admit(wrong, map[string]any{"show_id": show}); r.status != 404 || !strings.Contains(string(r.body), "check character does not match: mistyped?") {
		t.Errorf("a mistyped code: %d %s, want 404 saying the check character does not match", r.status, r.body)
	}
	if r := a.do("GET", "/api/v1/admin/tickets/"+url.PathEscape(wrong), staff, nil, nil); r.status != 404 {
		t.Errorf("checking a mistyped code: %d %s, want 404", r.status, r.body)
	}
	if r := admit(typed, map[string]any{"show_id": "999999"}); r.status != 409 || r.code() != "WRONG_SHOW" {
		t.Errorf("the code at another show's door: %d %s, want 409 WRONG_SHOW", r.status, r.body)
	}
	if r := a.do("GET", "/api/v1/admin/tickets/"+url.PathEscape(code), staff, nil, nil); r.status != 200 || r.json(t)["order_no"] != no || r.json(t)["valid"] != true {
		t.Errorf("check by code: %d %s", r.status, r.body)
	}
	r := admit(typed, map[string]any{"show_id": show})
	if r.status != 200 || r.json(t)["admitted"] != true || r.json(t)["order_no"] != no {
		t.Fatalf("admit by code %q: %d %s", typed, r.status, r.body)
	}
	page := a.postPage("/admin/shows/"+show+"/door", "/admin/door", staff, url.Values{"ref": {" " + code + " "}, "show_id": {show}})
	if body := html.UnescapeString(string(page.body)); page.status != 200 || !strings.Contains(body, "Already admitted at ") || !strings.Contains(body, no) {
		t.Errorf("the door page with the code: %d, want already admitted naming %s", page.status, no)
	}
	page = a.postPage("/admin/shows/"+show+"/door", "/admin/door", staff, url.Values{"ref": {wrong}, "show_id": {show}})
	if body := html.UnescapeString(string(page.body)); !strings.Contains(body, "check character does not match: mistyped?") {
		t.Errorf("the door page with a mistyped code does not say so")
	}
}
