package web

import (
	"html"
	"net/url"
	"strings"
	"testing"
)

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
			} else if c.name == "scanned URL admits" && !strings.Contains(body, "Admitted <strong>1</strong> of <strong>1</strong>") {
				t.Errorf("the count after the first admission is not 1 of 1")
			}
		})
	}
}
