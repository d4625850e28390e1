package web

import (
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// staffSeatOut is one seat of the admin API's staff seat map as a client reads it.
type staffSeatOut struct {
	ID          string  `json:"id"`
	Label       string  `json:"label"`
	State       string  `json:"state"`
	OrderNo     *string `json:"order_no"`
	OrderStatus *string `json:"order_status"`
	BuyerEmail  *string `json:"buyer_email"`
	Stuck       bool    `json:"stuck"`
	Cancellable bool    `json:"cancellable"`
}

// demoSoldShow returns the demo show that has paid orders (the nearly sold out one),
// one sold seat of it with its order number, and ids of its free seats.
func (a *testApp) demoSoldShow(t *testing.T) (show, soldSeat, orderNo string, free []string) {
	t.Helper()
	var row struct {
		ShowID  int64  `db:"show_id"`
		OrderNo string `db:"order_no"`
		SeatID  int64  `db:"seat_id"`
	}
	if err := a.DB.Get(&row, `SELECT o.show_id, o.order_no, os.seat_id FROM orders o JOIN order_seats os ON os.order_id = o.id
		WHERE o.status = 'paid' ORDER BY o.id LIMIT 1`); err != nil {
		t.Fatalf("no paid demo order: %v", err)
	}
	show = strconv.FormatInt(row.ShowID, 10)
	for _, s := range a.seatMap(show) {
		if s.State == "free" && s.Kind == "standard" {
			free = append(free, s.ID)
		}
	}
	if len(free) < 3 {
		t.Fatalf("show %s has %d free seats", show, len(free))
	}
	return show, strconv.FormatInt(row.SeatID, 10), row.OrderNo, free
}

// staffSeats reads the staff seat map through the admin API, by seat id.
func (a *testApp) staffSeats(t *testing.T, show, token string) map[string]staffSeatOut {
	t.Helper()
	r := a.do("GET", "/api/v1/admin/shows/"+show+"/seats", token, nil, nil)
	var v struct{ Seats []staffSeatOut }
	if r.status != 200 || json.Unmarshal(r.body, &v) != nil || len(v.Seats) == 0 {
		t.Fatalf("staff seat map: %d %s", r.status, r.body)
	}
	out := map[string]staffSeatOut{}
	for _, s := range v.Seats {
		out[s.ID] = s
	}
	return out
}

// TestAdminShowSeats_API drives the staff seat endpoints: roles, the map with a sold
// seat's order and buyer, blocking free seats (the public map shows them blocked), a
// refused block that names the sold seat and writes nothing, bad bodies, unblocking, and
// releasing a held seat by cancelling its pending order.
func TestAdminShowSeats_API(t *testing.T) {
	a := newTestApp(t, nil)
	staff, customer := a.demoToken("staff"), a.newUser()
	show, sold, orderNo, free := a.demoSoldShow(t)
	base := "/api/v1/admin/shows/" + show
	t.Run("roles", func(t *testing.T) {
		for _, c := range []struct {
			who, token string
			want       int
		}{{"anonymous", "", 401}, {"customer", customer, 403}} {
			if r := a.do("GET", base+"/seats", c.token, nil, nil); r.status != c.want {
				t.Errorf("%s GET: %d, want %d", c.who, r.status, c.want)
			}
			if r := a.do("POST", base+"/house-seats", c.token, map[string]any{"seat_ids": free[:1]}, nil); r.status != c.want {
				t.Errorf("%s POST: %d, want %d", c.who, r.status, c.want)
			}
		}
		if st := a.seatState(show, free[0]); st != "free" {
			t.Errorf("a refused caller changed a seat: %s", st)
		}
	})
	seats := a.staffSeats(t, show, staff)
	if s := seats[sold]; s.State != "sold" || s.OrderNo == nil || *s.OrderNo != orderNo || s.BuyerEmail == nil ||
		!strings.Contains(*s.BuyerEmail, "@") || s.OrderStatus == nil || *s.OrderStatus != "paid" {
		t.Errorf("sold seat: %+v", s)
	}
	r := a.do("POST", base+"/house-seats", staff, map[string]any{"seat_ids": free[:2], "reason": "press"}, nil)
	if r.status != 200 {
		t.Fatalf("block: %d %s", r.status, r.body)
	}
	if got := r.json(t)["blocked"].([]any); len(got) != 2 || got[0] != seats[free[0]].Label {
		t.Errorf("blocked %v", got)
	}
	for _, id := range free[:2] {
		if st := a.seatState(show, id); st != "blocked" {
			t.Errorf("public map: seat %s is %s, want blocked", id, st)
		}
	}
	if s := a.staffSeats(t, show, staff)[free[0]]; s.State != "house" {
		t.Errorf("staff map: %+v, want house", s)
	}
	t.Run("refused", func(t *testing.T) {
		cases := []struct {
			name string
			body any
			want int
			code string
		}{
			{"sold seat", map[string]any{"seat_ids": []string{free[2], sold}}, 409, "SEAT_TAKEN"},
			{"house seat already", map[string]any{"seat_ids": []string{free[0]}}, 409, "CONFLICT"},
			{"no seats", map[string]any{"seat_ids": []string{}}, 400, "INVALID_REQUEST"},
			{"number id", `{"seat_ids":[12]}`, 400, "INVALID_REQUEST"},
			{"not an id", map[string]any{"seat_ids": []string{"x"}}, 400, "INVALID_REQUEST"},
			{"unknown field", map[string]any{"seat_ids": []string{free[2]}, "reson": "x"}, 400, "INVALID_REQUEST"},
			{"two values", `{"seat_ids":["1"]} {}`, 400, "INVALID_REQUEST"},
			{"not of the hall", map[string]any{"seat_ids": []string{"987654321"}}, 422, "SEAT_NOT_IN_SHOW"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := a.do("POST", base+"/house-seats", staff, c.body, nil)
				if r.status != c.want || r.code() != c.code {
					t.Fatalf("%d %s, want %d %s", r.status, r.body, c.want, c.code)
				}
				if st := a.seatState(show, free[2]); st != "free" {
					t.Errorf("a refused block changed seat %s: %s", free[2], st)
				}
			})
		}
		r := a.do("POST", base+"/house-seats", staff, map[string]any{"seat_ids": []string{free[2], sold}}, nil)
		var e struct{ Error struct{ Seats []string } }
		json.Unmarshal(r.body, &e)
		if len(e.Error.Seats) != 1 || e.Error.Seats[0] != seats[sold].Label {
			t.Errorf("the refusal names %v, want [%s]", e.Error.Seats, seats[sold].Label)
		}
		if r := a.do("POST", "/api/v1/admin/shows/987654/house-seats", staff, map[string]any{"seat_ids": free[:1]}, nil); r.status != 404 {
			t.Errorf("unknown show: %d", r.status)
		}
	})
	r = a.do("POST", base+"/house-seats/unblock", staff, map[string]any{"seat_ids": free[:1]}, nil)
	if r.status != 200 || r.json(t)["freed_now"] != float64(1) {
		t.Fatalf("unblock: %d %s", r.status, r.body)
	}
	if st := a.seatState(show, free[0]); st != "free" {
		t.Errorf("unblocked seat is %s", st)
	}
	if r := a.do("POST", base+"/house-seats/unblock", staff, map[string]any{"seat_ids": free[:1]}, nil); r.status != 409 {
		t.Errorf("unblocking a seat that is no house seat: %d %s", r.status, r.body)
	}
	t.Run("release", func(t *testing.T) {
		r := a.do("POST", "/api/v1/shows/"+show+"/orders", customer, map[string]any{"seat_ids": free[2:3]}, nil)
		if r.status != 201 {
			t.Fatalf("order: %d %s", r.status, r.body)
		}
		no := r.json(t)["order_no"].(string)
		path := base + "/seats/" + free[2] + "/release"
		for _, c := range []struct {
			name string
			body any
			want int
		}{
			{"no reason", map[string]any{"order_no": no}, 400},
			{"empty reason", map[string]any{"order_no": no, "reason": " "}, 400},
			{"another order", map[string]any{"order_no": orderNo, "reason": "x"}, 409},
		} {
			if r := a.do("POST", path, staff, c.body, nil); r.status != c.want {
				t.Errorf("%s: %d %s, want %d", c.name, r.status, r.body, c.want)
			}
		}
		if st := a.seatState(show, free[2]); st != "held" {
			t.Fatalf("a refused release changed the seat: %s", st)
		}
		r = a.do("POST", path, staff, map[string]any{"order_no": no, "reason": "buyer called"}, nil)
		if r.status != 200 || r.json(t)["action"] != "order_cancelled" {
			t.Fatalf("release: %d %s", r.status, r.body)
		}
		if st := a.seatState(show, free[2]); st != "free" {
			t.Errorf("released seat is %s", st)
		}
		if r := a.do("POST", base+"/seats/"+sold+"/release", staff, map[string]any{"order_no": orderNo, "reason": "x"}, nil); r.status != 409 || r.code() != "ORDER_STATE" {
			t.Errorf("releasing a sold seat: %d %s", r.status, r.body)
		}
	})
}

// seatsForm posts a form of the staff seat page as a browser would: it loads the page
// with the session cookie for the CSRF cookie and token, then posts vals to action.
func (a *testApp) seatsForm(t *testing.T, page, action, session string, vals url.Values) apiResp {
	t.Helper()
	p := a.do("GET", page, "", nil, map[string]string{"Cookie": "sf_session=" + session})
	m := regexp.MustCompile(`name="_csrf" value="([^"]+)"`).FindSubmatch(p.body)
	if p.status != 200 || m == nil {
		t.Fatalf("GET %s: %d, no CSRF token", page, p.status)
	}
	vals.Set("_csrf", html.UnescapeString(string(m[1])))
	req, _ := http.NewRequest("POST", a.base+action, strings.NewReader(vals.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Add("Cookie", "sf_session="+session)
	for _, c := range p.header.Values("Set-Cookie") {
		req.Header.Add("Cookie", strings.SplitN(c, ";", 2)[0])
	}
	res, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return apiResp{status: res.StatusCode, body: b, header: res.Header}
}

// TestAdminShowSeats_Page drives the console page without JavaScript: the map lists
// the sold seat's order (linked) and buyer; the house form blocks ticked seats and
// redirects (303) with a notice; a refused block shows the page again (409) naming the
// seat, with the seats still ticked; a release without a reason is refused (400).
func TestAdminShowSeats_Page(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	show, sold, orderNo, free := a.demoSoldShow(t)
	page := "/admin/shows/" + show + "/seats"
	for _, c := range []struct {
		who, token string
		want       int
	}{{"anonymous", "", 303}, {"customer", a.newUser(), 403}, {"staff", staff, 200}} {
		if st := a.page(page, c.token); st != c.want {
			t.Errorf("%s: %d, want %d", c.who, st, c.want)
		}
	}
	if st := a.page("/admin/shows/987654/seats", staff); st != 404 {
		t.Errorf("unknown show: %d", st)
	}
	p := a.do("GET", page, "", nil, map[string]string{"Cookie": "sf_session=" + staff})
	body := string(p.body)
	for _, want := range []string{`href="/admin/orders/` + orderNo + `"`, "filler-", "Block as house seats", `<th scope="col">Buyer</th>`} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	vals := url.Values{"action": {"block"}, "reason": {"guests"}, "seat": free[:2]}
	r := a.seatsForm(t, page, page+"/house", staff, vals)
	if r.status != 303 || r.header.Get("Location") != page {
		t.Fatalf("block: %d %s", r.status, r.header.Get("Location"))
	}
	var notice string
	for _, c := range r.header.Values("Set-Cookie") {
		if strings.HasPrefix(c, "sf_seats_notice=") {
			notice = strings.SplitN(c, ";", 2)[0]
		}
	}
	p = a.do("GET", page, "", nil, map[string]string{"Cookie": "sf_session=" + staff + "; " + notice})
	if !strings.Contains(string(p.body), "Blocked as house seats:") {
		t.Errorf("no notice after the block (cookie %q)", notice)
	}
	for _, id := range free[:2] {
		if st := a.seatState(show, id); st != "blocked" {
			t.Errorf("seat %s is %s, want blocked", id, st)
		}
	}
	r = a.seatsForm(t, page, page+"/house", staff, url.Values{"action": {"block"}, "seat": {free[2], sold}})
	if r.status != 409 || !strings.Contains(string(r.body), "(sold, order "+orderNo+")") {
		t.Errorf("refused block: %d", r.status)
	}
	if !regexp.MustCompile(`value="` + free[2] + `"[^>]*checked`).Match(r.body) {
		t.Errorf("the refused selection was not kept ticked")
	}
	if st := a.seatState(show, free[2]); st != "free" {
		t.Errorf("a refused block changed seat %s: %s", free[2], st)
	}
	r = a.seatsForm(t, page, page+"/"+free[2]+"/release", staff, url.Values{"order_no": {"X"}, "reason": {""}})
	if r.status != 400 || !strings.Contains(string(r.body), "Give a reason") {
		t.Errorf("release without a reason: %d", r.status)
	}
	o := a.do("POST", "/api/v1/shows/"+show+"/orders", a.newUser(), map[string]any{"seat_ids": free[2:3]}, nil)
	if o.status != 201 {
		t.Fatalf("order: %d %s", o.status, o.body)
	}
	no := o.json(t)["order_no"].(string)
	if body := string(a.do("GET", page, "", nil, map[string]string{"Cookie": "sf_session=" + staff}).body); !strings.Contains(body, ">Cancel order</button>") {
		t.Errorf("the pending order %s has no Cancel order form", no)
	}
	r = a.seatsForm(t, page, page+"/"+free[2]+"/release", staff, url.Values{"order_no": {no}, "reason": {"buyer called"}})
	if r.status != 303 || r.header.Get("Location") != page {
		t.Fatalf("release: %d", r.status)
	}
	if st := a.seatState(show, free[2]); st != "free" {
		t.Errorf("released seat is %s", st)
	}
}

// TestAdminShowSeats_Browser: staff sign in, open the seat map of the demo show that has
// sold seats, see a sold seat's order number, tick two free seats and block them, and
// see them as house seats; the show's public page then offers them to nobody.
func TestAdminShowSeats_Browser(t *testing.T) {
	a := newTestApp(t, nil)
	show, sold, orderNo, free := a.demoSoldShow(t)
	// a buyer holds one more seat: its pending order shows a Cancel order form
	if r := a.do("POST", "/api/v1/shows/"+show+"/orders", a.newUser(), map[string]any{"seat_ids": free[2:3]}, nil); r.status != 201 {
		t.Fatalf("order: %d %s", r.status, r.body)
	}
	acc := a.accounts["staff"]
	page := "/admin/shows/" + show + "/seats"
	ctx := newBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+page),
		chromedp.WaitVisible(css(`#email`)),
		chromedp.SendKeys(css(`#email`), acc.Email),
		chromedp.SendKeys(css(`#password`), acc.Password),
		chromedp.Submit(css(`#password`)),
		chromedp.WaitVisible(css(`#held-sold`)),
	); err != nil {
		t.Fatalf("sign in and open the seat map: %v", err)
	}
	screenshot(t, ctx, "admin-show-seats")
	_, table := browserAt(t, ctx, `#held-sold`)
	if !strings.Contains(table, orderNo) {
		t.Errorf("the table does not list order %s", orderNo)
	}
	attr, err := chromedp.Run(ctx, chromedp.AttributeValue(css(`a.seat[href="/admin/orders/`+orderNo+`"]`), "title"))
	if err != nil {
		t.Fatalf("the sold seat %s is no link to its order: %v", sold, err)
	}
	if title := attr.Value; !strings.Contains(title, orderNo) || !strings.Contains(title, "@") {
		t.Errorf("sold seat's tooltip %q lacks the order or buyer", title)
	}
	if err := chromedp.Do(ctx,
		chromedp.Click(css(`input[name="seat"][value="`+free[0]+`"]`)),
		chromedp.Click(css(`input[name="seat"][value="`+free[1]+`"]`)),
		chromedp.SendKeys(css(`#house-reason`), "guests of the director"),
		chromedp.Click(css(`button[name="action"][value="block"]`)),
		chromedp.WaitVisible(css(`#notice`)),
	); err != nil {
		t.Fatalf("block two seats: %v", err)
	}
	screenshot(t, ctx, "admin-show-seats-blocked")
	loc, notice := browserAt(t, ctx, `#notice`)
	if !strings.HasSuffix(loc, page) || !strings.Contains(notice, "Blocked as house seats") {
		t.Errorf("after the block: %s %q", loc, notice)
	}
	for _, id := range free[:2] {
		class, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('input[value="`+id+`"]').parentElement.className`))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(class, "seat-house") {
			t.Errorf("seat %s has class %q after the block, want seat-house", id, class)
		}
	}
	labels := map[string]string{}
	for _, s := range a.seatMap(show) {
		labels[s.ID] = s.Label
	}
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/shows/"+show),
		chromedp.WaitVisible(css(`.seatmap-scroll`)),
	); err != nil {
		t.Fatalf("open the show page: %v", err)
	}
	screenshot(t, ctx, "show-with-house-seats")
	for _, id := range free[:2] {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('input[name="seat"][value="`+id+`"]').length`))
		if err != nil {
			t.Fatal(err)
		}
		class, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('[data-label="`+labels[id]+`"]')||{}).className||""`))
		if err != nil {
			t.Fatal(err)
		}
		if n != 0 || !strings.Contains(class, "seat-blocked") {
			t.Errorf("show page: seat %s offers %d checkboxes, class %q; want no checkbox, seat-blocked", labels[id], n, class)
		}
	}
}
