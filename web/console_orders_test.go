package web

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// getPage GETs a browser page with the session cookie of token ("" for none), without
// following redirects.
func (a *testApp) getPage(path, token string) apiResp {
	a.t.Helper()
	hdr := map[string]string{}
	if token != "" {
		hdr["Cookie"] = "sf_session=" + token
	}
	return a.do("GET", path, "", nil, hdr)
}

var csrfInput = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// postPage loads page with the session of token and posts vals (with the page's CSRF
// token and cookies) to action, as a browser would; no redirect is followed.
func (a *testApp) postPage(page, action, token string, vals url.Values) apiResp {
	a.t.Helper()
	p := a.getPage(page, token)
	m := csrfInput.FindStringSubmatch(string(p.body))
	if p.status != 200 || m == nil {
		a.t.Fatalf("GET %s: %d, CSRF token found: %v", page, p.status, m != nil)
	}
	form := url.Values{}
	for k, v := range vals {
		form[k] = v
	}
	form.Set("_csrf", html.UnescapeString(m[1]))
	req, err := http.NewRequest("POST", a.base+action, strings.NewReader(form.Encode()))
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, c := range p.header.Values("Set-Cookie") {
		req.Header.Add("Cookie", strings.SplitN(c, ";", 2)[0])
	}
	req.Header.Add("Cookie", "sf_session="+token)
	res, err := noRedirect.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return apiResp{status: res.StatusCode, body: b, header: res.Header}
}

// registerAs registers and signs in a customer with email, returning the token and id.
func (a *testApp) registerAs(email string) (string, string) {
	a.t.Helper()
	return a.registerReading(email, "")
}

// registerReading is registerAs of an account whose e-mails are in lang (the register
// body's "lang"; "" leaves it out: English).
func (a *testApp) registerReading(email, lang string) (string, string) {
	a.t.Helper()
	body := map[string]string{"email": email, "password": "password-123", "name": "Buyer " + email}
	if lang != "" {
		body["lang"] = lang
	}
	r := a.do("POST", "/api/v1/auth/register", "", body, nil)
	if r.status != 201 {
		a.t.Fatalf("register %s: %d %s", email, r.status, r.body)
	}
	uid := r.json(a.t)["user_id"].(string)
	l := a.do("POST", "/api/v1/auth/login", "", map[string]string{"email": email, "password": "password-123"}, nil)
	if l.status != 200 {
		a.t.Fatalf("login: %d %s", l.status, l.body)
	}
	return l.json(a.t)["token"].(string), uid
}

// orderSeats creates an order of seats on show for token and returns its number.
func (a *testApp) orderSeats(token, show string, seats []string) string {
	a.t.Helper()
	r := a.do("POST", "/api/v1/shows/"+show+"/orders", token, map[string]any{"seat_ids": seats}, nil)
	if r.status != 201 {
		a.t.Fatalf("order %v: %d %s", seats, r.status, r.body)
	}
	return r.json(a.t)["order_no"].(string)
}

// payOrder pays order no of token with the demo provider, approved.
func (a *testApp) payOrder(token, no string) string {
	a.t.Helper()
	pr := a.do("POST", "/api/v1/orders/"+no+"/pay", token, nil, nil)
	if pr.status != 200 {
		a.t.Fatalf("pay: %d %s", pr.status, pr.body)
	}
	pid := pr.json(a.t)["payment_id"].(string)
	if _, err := a.Payments.DemoDecide(context.Background(), pid, true); err != nil {
		a.t.Fatal(err)
	}
	return pid
}

// purchaseLimit reads a show's purchase limit from the public API.
func (a *testApp) purchaseLimit(show string) int {
	a.t.Helper()
	var v struct {
		PurchaseLimit int `json:"purchase_limit"`
	}
	if r := a.do("GET", "/api/v1/shows/"+show, "", nil, nil); r.status != 200 || json.Unmarshal(r.body, &v) != nil || v.PurchaseLimit < 1 {
		a.t.Fatalf("show %s: %d %s", show, r.status, r.body)
	}
	return v.PurchaseLimit
}

// orderLinks lists the order numbers the search page links to, in page order.
func orderLinks(body []byte) []string {
	var out []string
	for _, m := range regexp.MustCompile(`href="/admin/orders/([A-Za-z0-9-]+)"`).FindAllStringSubmatch(string(body), -1) {
		out = append(out, m[1])
	}
	return out
}

// TestAdminOrderPages_SearchDetailRefund drives the staff order pages: search by order
// number, by the buyer's email in another case, by show and status; an order's page with
// its payments; refund refusals that keep the form; a refund that frees the seats and
// gives the purchase limit back (the buyer books up to the limit again); a pending order
// refused with the message; the order's history with the refund's audit entry.
func TestAdminOrderPages_SearchDetailRefund(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	show, seats := a.onSaleShow(a.Cfg.PurchaseLimit + 1)
	limit := a.purchaseLimit(show)
	if len(seats) < limit+1 {
		seats = a.freeSeats(show, limit+1)
	}
	buyer, _ := a.registerAs(fmt.Sprintf("ada.buyer%d@example.test", time.Now().UnixNano()))
	email := a.accountEmail(buyer)
	paidNo := a.orderSeats(buyer, show, seats[:limit])
	payID := a.payOrder(buyer, paidNo)
	other := a.newUser()
	pendNo := a.orderSeats(other, show, seats[limit:limit+1])

	t.Run("search", func(t *testing.T) {
		cases := []struct {
			name, query string
			want        []string
		}{
			{"by order number", "?order_no=" + paidNo, []string{paidNo}},
			{"by email in another case", "?email=" + url.QueryEscape(strings.ToUpper(email)), []string{paidNo}},
			{"by show", "?show_id=" + show, []string{pendNo, paidNo}},
			{"by show and status", "?show_id=" + show + "&status=pending", []string{pendNo}},
			{"by status paid and email", "?status=paid&email=" + url.QueryEscape(email), []string{paidNo}},
			{"nothing matches", "?status=refunded&show_id=" + show, nil},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := a.getPage("/admin/orders"+c.query, staff)
				if r.status != 200 {
					t.Fatalf("%d %s", r.status, r.body)
				}
				if got := orderLinks(r.body); fmt.Sprint(got) != fmt.Sprint(c.want) {
					t.Errorf("orders %v, want %v", got, c.want)
				}
			})
		}
		r := a.getPage("/admin/orders?order_no="+paidNo, staff)
		body := string(r.body)
		for _, want := range []string{email, "paid", "¥"} {
			if !strings.Contains(body, want) {
				t.Errorf("result row lacks %q", want)
			}
		}
		for _, bad := range []struct{ query, msg string }{
			{"?show_id=seven", "The show id must be a number"},
			{"?email=not-an-email", "is not a usable email address"},
			{"?status=lost", "Status must be one of"},
		} {
			r := a.getPage("/admin/orders"+bad.query, staff)
			if r.status != 400 || !strings.Contains(string(r.body), bad.msg) {
				t.Errorf("%s: %d, want 400 saying %q", bad.query, r.status, bad.msg)
			}
		}
		if r := a.getPage("/admin/orders?show_id=seven", staff); !strings.Contains(string(r.body), `value="seven"`) {
			t.Errorf("the form lost the typed show id")
		}
	})

	orderPage := "/admin/orders/" + paidNo
	t.Run("order page", func(t *testing.T) {
		r := a.getPage(orderPage, staff)
		body := string(r.body)
		if r.status != 200 || !strings.Contains(body, payID) || !strings.Contains(body, "approved") || !strings.Contains(body, email) ||
			!strings.Contains(body, `action="/admin/orders/`+paidNo+`/refund"`) {
			t.Fatalf("order page: %d\n%s", r.status, body)
		}
		if p := a.getPage("/admin/orders/"+pendNo, staff); strings.Contains(string(p.body), "/refund\"") {
			t.Errorf("a pending order's page offers the refund form")
		}
		if p := a.getPage("/admin/orders/NOSUCHORDER", staff); p.status != 404 {
			t.Errorf("unknown order page: %d", p.status)
		}
	})

	if r := a.do("POST", "/api/v1/shows/"+show+"/orders", buyer, map[string]any{"seat_ids": a.freeSeats(show, 1)}, nil); r.status != 422 || r.code() != "LIMIT_EXCEEDED" {
		t.Fatalf("a seat over the limit before the refund: %d %s", r.status, r.body)
	}

	t.Run("refund form refusals keep the input", func(t *testing.T) {
		cases := []struct {
			name string
			vals url.Values
			msg  string
			keep string
		}{
			{"no reason", url.Values{"confirm": {"yes"}}, "Give a reason", `id="confirm" name="confirm" type="checkbox" value="yes" required checked`},
			{"not confirmed", url.Values{"reason": {"double booking"}}, "Tick the box", `value="double booking"`},
			{"reason too long", url.Values{"reason": {strings.Repeat("x", 201)}, "confirm": {"yes"}}, "longer than 200", ""},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := a.postPage(orderPage, orderPage+"/refund", staff, c.vals)
				if r.status != 400 || !strings.Contains(string(r.body), c.msg) || !strings.Contains(string(r.body), c.keep) {
					t.Errorf("%d, want 400 saying %q keeping %q:\n%s", r.status, c.msg, c.keep, r.body)
				}
				if st, _ := a.orderStatus(paidNo); st != "paid" {
					t.Fatalf("order %s after a refused refund", st)
				}
			})
		}
	})

	t.Run("refund frees the seats and the purchase limit", func(t *testing.T) {
		r := a.postPage(orderPage, orderPage+"/refund", staff, url.Values{"reason": {"the buyer asked"}, "confirm": {"yes"}})
		if r.status != 303 || r.header.Get("Location") != orderPage+"?refunded=1" {
			t.Fatalf("refund: %d %s %s", r.status, r.header.Get("Location"), r.body)
		}
		st, pays := a.orderStatus(paidNo)
		if st != "refunded" || fmt.Sprint(pays) != "[refunded]" {
			t.Fatalf("order %s payments %v after the refund", st, pays)
		}
		for _, s := range seats[:limit] {
			if got := a.seatState(show, s); got != "free" {
				t.Errorf("seat %s is %s after the refund", s, got)
			}
		}
		page := a.getPage(orderPage+"?refunded=1", staff)
		body := string(page.body)
		for _, want := range []string{"Order refunded", "order.refund", "the buyer asked", "status-refunded", "paid</span>", "refunded</span>"} {
			if !strings.Contains(body, want) {
				t.Errorf("order page after the refund lacks %q", want)
			}
		}
		if strings.Contains(body, orderPage+"/refund\"") {
			t.Errorf("a refunded order still offers the refund form")
		}
		// the same buyer books up to the limit again: the same seats
		again := a.orderSeats(buyer, show, seats[:limit])
		if again == "" {
			t.Fatal("no order")
		}
	})

	t.Run("refund of a pending order is refused with the message", func(t *testing.T) {
		page := "/admin/orders/" + pendNo
		r := a.postPage(page, page+"/refund", staff, url.Values{"reason": {"try"}, "confirm": {"yes"}})
		if r.status != 409 || !strings.Contains(string(r.body), "The order is pending and cannot be refunded.") {
			t.Errorf("%d, want 409 with the message:\n%s", r.status, r.body)
		}
		if st, _ := a.orderStatus(pendNo); st != "pending" {
			t.Errorf("pending order is %s after a refused refund", st)
		}
	})

	t.Run("API order detail", func(t *testing.T) {
		r := a.do("GET", "/api/v1/admin/orders/"+paidNo, staff, nil, nil)
		var v struct {
			OrderNo  string `json:"order_no"`
			Status   string
			User     struct{ ID, Email string }
			Payments []struct {
				PaymentID string `json:"payment_id"`
				Status    string
				UpdatedAt string `json:"updated_at"`
			}
			History []struct {
				Action string
				Actor  *struct{ Email string }
				Before map[string]any
				After  map[string]any
			}
		}
		if r.status != 200 || json.Unmarshal(r.body, &v) != nil {
			t.Fatalf("%d %s", r.status, r.body)
		}
		if v.OrderNo != paidNo || v.Status != "refunded" || v.User.Email != email || len(v.Payments) != 1 ||
			v.Payments[0].PaymentID != payID || v.Payments[0].Status != "refunded" || len(v.History) != 1 ||
			v.History[0].Action != "order.refund" || v.History[0].Actor == nil || v.History[0].Actor.Email != a.accounts["staff"].Email ||
			v.History[0].Before["status"] != "paid" || v.History[0].After["status"] != "refunded" {
			t.Errorf("order detail: %s", r.body)
		}
		if r := a.do("GET", "/api/v1/admin/orders/NOSUCHORDER", staff, nil, nil); r.status != 404 || r.code() != "NOT_FOUND" {
			t.Errorf("unknown order: %d %s", r.status, r.body)
		}
	})
}

// accountEmail is the stored (canonical) email of the account of token.
func (a *testApp) accountEmail(token string) string {
	a.t.Helper()
	u, err := a.Users.Authenticate(context.Background(), token)
	if err != nil {
		a.t.Fatal(err)
	}
	return u.Email
}
