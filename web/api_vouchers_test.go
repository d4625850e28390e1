package web

import (
	"encoding/csv"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"seatflow/views"
)

// TestAdminVouchers_API walks the staff voucher endpoints: 201 with the fields given,
// 400 INVALID_REQUEST for bad input (nothing written), 409 for a taken code in any case,
// PATCH (ending, max_uses below the live uses), the list and its filters, a batch and
// its CSV, and limited staff kept to their cinemas.
func TestAdminVouchers_API(t *testing.T) {
	a := newTestApp(t, nil)
	f := a.cinemaFixture()
	staff := a.demoToken("staff")
	until := a.clock.Now().Add(30 * 24 * time.Hour).UTC().Truncate(time.Second).Format(time.RFC3339)
	r := a.do("POST", "/api/v1/admin/vouchers", staff, map[string]any{"code": "summer-15", "max_uses": 10, "percent_off": 15,
		"valid_until": until, "show_ids": []string{f.showA}, "ticket_types": []string{"adult"}}, nil)
	if r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	v := r.json(t)
	for k, want := range map[string]any{"code": "SUMMER-15", "max_uses": 10.0, "uses": 0.0, "active": true, "percent_off": 15.0,
		"valid_until": until, "cinema_id": f.cinemaA} {
		if v[k] != want {
			t.Errorf("%s = %v, want %v", k, v[k], want)
		}
	}
	if ids, _ := v["show_ids"].([]any); len(ids) != 1 || ids[0] != f.showA {
		t.Errorf("show_ids = %v", v["show_ids"])
	}
	// limited to a show and given no cinema, a voucher is its show's cinema's
	if r := a.do("POST", "/api/v1/admin/vouchers", staff, map[string]any{"code": "B-SHOW-ONLY", "max_uses": 1, "percent_off": 5,
		"show_ids": []string{f.showB}}, nil); r.status != 201 || r.json(t)["cinema_id"] != f.cinemaB {
		t.Errorf("a voucher for B's show: %d %s, want 201 in cinema %s", r.status, r.body, f.cinemaB)
	}
	t.Run("refused", func(t *testing.T) {
		for name, tc := range map[string]struct {
			body   any
			status int
			code   string
		}{
			"taken, other case":       {map[string]any{"code": "Summer-15", "max_uses": 1, "price_minor": 0}, 409, "CONFLICT"},
			"short code":              {map[string]any{"code": "abc", "max_uses": 1, "price_minor": 0}, 400, "INVALID_REQUEST"},
			"no max_uses":             {map[string]any{"code": "NEW-1", "price_minor": 0}, 400, "INVALID_REQUEST"},
			"two rules":               {map[string]any{"code": "NEW-1", "max_uses": 1, "price_minor": 0, "percent_off": 5}, 400, "INVALID_REQUEST"},
			"percent 101":             {map[string]any{"code": "NEW-1", "max_uses": 1, "percent_off": 101}, 400, "INVALID_REQUEST"},
			"show of cinema B for A":  {map[string]any{"code": "NEW-1", "max_uses": 1, "percent_off": 5, "cinema_id": f.cinemaA, "show_ids": []string{f.showB}}, 400, "INVALID_REQUEST"},
			"shows of A and B":        {map[string]any{"code": "NEW-1", "max_uses": 1, "percent_off": 5, "show_ids": []string{f.showA, f.showB}}, 400, "INVALID_REQUEST"},
			"limited staff, A's show": {map[string]any{"code": "NEW-1", "max_uses": 1, "percent_off": 5, "show_ids": []string{f.showA}}, 403, "FORBIDDEN"},
			"show id a number":        {map[string]any{"code": "NEW-1", "max_uses": 1, "percent_off": 5, "show_ids": "12"}, 400, "INVALID_REQUEST"},
			"unknown ticket type":     {map[string]any{"code": "NEW-1", "max_uses": 1, "percent_off": 5, "ticket_types": []string{"nope"}}, 400, "INVALID_REQUEST"},
			"window backwards":        {map[string]any{"code": "NEW-1", "max_uses": 1, "percent_off": 5, "valid_from": until, "valid_until": "2020-01-01T00:00:00Z"}, 400, "INVALID_REQUEST"},
			"not a time":              {map[string]any{"code": "NEW-1", "max_uses": 1, "percent_off": 5, "valid_from": "tomorrow"}, 400, "INVALID_REQUEST"},
			"unknown field":           {map[string]any{"code": "NEW-1", "max_uses": 1, "percent_off": 5, "colour": "red"}, 400, "INVALID_REQUEST"},
			"fractional max_uses":     {map[string]any{"code": "NEW-1", "max_uses": 1.5, "percent_off": 5}, 400, "INVALID_REQUEST"},
			"limited staff, A":        {map[string]any{"code": "NEW-1", "max_uses": 1, "percent_off": 5, "cinema_id": f.cinemaA}, 403, "FORBIDDEN"},
			"unknown cinema (admin)":  {map[string]any{"code": "NEW-1", "max_uses": 1, "percent_off": 5, "cinema_id": "999999"}, 404, "NOT_FOUND"},
		} {
			t.Run(name, func(t *testing.T) {
				token := staff
				if strings.HasPrefix(name, "limited") {
					token = f.limited
				}
				before := a.count("SELECT COUNT(*) FROM vouchers")
				r := a.do("POST", "/api/v1/admin/vouchers", token, tc.body, nil)
				if r.status != tc.status || r.code() != tc.code {
					t.Fatalf("-> %d %s, want %d %s", r.status, r.body, tc.status, tc.code)
				}
				if after := a.count("SELECT COUNT(*) FROM vouchers"); after != before {
					t.Errorf("vouchers %d -> %d", before, after)
				}
			})
		}
	})
	t.Run("patch", func(t *testing.T) {
		r := a.do("PATCH", "/api/v1/admin/vouchers/summer-15", staff, map[string]any{"active": false, "valid_until": nil, "amount_off_minor": 500}, nil)
		got := r.json(t)
		if r.status != 200 || got["active"] != false || got["valid_until"] != nil || got["amount_off_minor"] != 500.0 || got["percent_off"] != nil {
			t.Fatalf("-> %d %s", r.status, r.body)
		}
		if _, err := a.DB.Exec("UPDATE vouchers SET uses = 3 WHERE code = 'SUMMER-15'"); err != nil {
			t.Fatal(err)
		}
		r = a.do("PATCH", "/api/v1/admin/vouchers/SUMMER-15", staff, map[string]any{"max_uses": 2}, nil)
		if r.status != 400 || r.code() != "INVALID_REQUEST" || !strings.Contains(string(r.body), "3 live uses") {
			t.Errorf("below the uses: %d %s", r.status, r.body)
		}
		if r = a.do("PATCH", "/api/v1/admin/vouchers/SUMMER-15", staff, map[string]any{"code": "OTHER"}, nil); r.status != 400 {
			t.Errorf("renaming: %d %s", r.status, r.body)
		}
		if r = a.do("GET", "/api/v1/admin/vouchers/Summer-15", staff, nil, nil); r.status != 200 || r.json(t)["uses"] != 3.0 || r.json(t)["max_uses"] != 10.0 {
			t.Errorf("GET: %d %s", r.status, r.body)
		}
		if r = a.do("GET", "/api/v1/admin/vouchers/NO-SUCH", staff, nil, nil); r.status != 404 {
			t.Errorf("unknown: %d", r.status)
		}
	})
	t.Run("limited staff", func(t *testing.T) {
		r := a.do("POST", "/api/v1/admin/vouchers", f.limited, map[string]any{"code": "RIVER-5", "max_uses": 5, "price_minor": 2000}, nil)
		if r.status != 201 || r.json(t)["cinema_id"] != f.cinemaB {
			t.Fatalf("create in B by default: %d %s", r.status, r.body)
		}
		for _, c := range []struct{ method, path string }{{"GET", "/api/v1/admin/vouchers/SUMMER-15"}, {"PATCH", "/api/v1/admin/vouchers/SUMMER-15"}} {
			if r := a.do(c.method, c.path, f.limited, map[string]any{"active": true}, nil); r.status != 403 || r.code() != "FORBIDDEN" {
				t.Errorf("%s A's voucher: %d %s", c.method, r.status, r.body)
			}
		}
		list := a.do("GET", "/api/v1/admin/vouchers", f.limited, nil, nil)
		if list.status != 200 || strings.Contains(string(list.body), "SUMMER-15") || !strings.Contains(string(list.body), "RIVER-5") {
			t.Errorf("limited list: %s", list.body)
		}
		if r := a.do("GET", "/api/v1/admin/vouchers?cinema_id="+f.cinemaA, f.limited, nil, nil); r.status != 403 {
			t.Errorf("list of A: %d", r.status)
		}
		all := a.do("GET", "/api/v1/admin/vouchers?cinema_id="+f.cinemaB, f.admin, nil, nil)
		if !strings.Contains(string(all.body), "RIVER-5") || strings.Contains(string(all.body), "SUMMER-15") {
			t.Errorf("admin's list of B: %s", all.body)
		}
	})
	t.Run("batch and CSV", func(t *testing.T) {
		r := a.do("POST", "/api/v1/admin/vouchers/batch", staff, map[string]any{"prefix": "flyer", "count": 25, "batch": "Spring flyers", "percent_off": 20}, nil)
		if r.status != 201 || r.json(t)["count"] != 25.0 {
			t.Fatalf("batch: %d %s", r.status, r.body)
		}
		for name, body := range map[string]map[string]any{
			"count 0":    {"prefix": "X", "count": 0, "batch": "b", "percent_off": 20},
			"count 1001": {"prefix": "X", "count": 1001, "batch": "b", "percent_off": 20},
			"no batch":   {"prefix": "X", "count": 1, "percent_off": 20},
			"a code":     {"code": "ABCD", "prefix": "X", "count": 1, "batch": "b", "percent_off": 20},
		} {
			if r := a.do("POST", "/api/v1/admin/vouchers/batch", staff, body, nil); r.status != 400 {
				t.Errorf("%s: %d %s", name, r.status, r.body)
			}
		}
		if r := a.do("POST", "/api/v1/admin/vouchers/batch", staff, map[string]any{"prefix": "X", "count": 1, "batch": "Spring flyers", "percent_off": 5}, nil); r.status != 409 {
			t.Errorf("batch name taken: %d %s", r.status, r.body)
		}
		list := a.do("GET", "/api/v1/admin/vouchers?batch="+url.QueryEscape("Spring flyers"), staff, nil, nil)
		if n := strings.Count(string(list.body), `"code":"FLYER-`); n != 25 {
			t.Errorf("list of the batch: %d codes", n)
		}
		r = a.do("GET", "/api/v1/admin/vouchers/batch/"+url.PathEscape("Spring flyers")+".csv", staff, nil, nil)
		rows, err := csv.NewReader(strings.NewReader(string(r.body))).ReadAll()
		if r.status != 200 || err != nil || len(rows) != 26 || rows[0][0] != "code" || !strings.HasPrefix(rows[1][0], "FLYER-") || rows[1][1] != "1" || rows[1][4] != "20" {
			t.Fatalf("CSV: %d %v %.300s", r.status, err, r.body)
		}
		if r := a.do("GET", "/api/v1/admin/vouchers/batch/nothing.csv", staff, nil, nil); r.status != 404 {
			t.Errorf("unknown batch: %d", r.status)
		}
	})
	t.Run("audited", func(t *testing.T) {
		r := a.do("GET", "/api/v1/admin/audit?entity=voucher&entity_id=SUMMER-15", staff, nil, nil)
		if n := strings.Count(string(r.body), `"action":"voucher.`); n != 2 || !strings.Contains(string(r.body), `"cinema_id":"`+f.cinemaA+`"`) {
			t.Errorf("audit: %d entries %s", n, r.body)
		}
	})
}

// TestVoucherQuote_API: a buyer previews a code on chosen seats: the saving and the
// total, or 422 VOUCHER_INVALID with the reason.
func TestVoucherQuote_API(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	show, seats := a.onSaleShow(2)
	var other string
	if err := a.DB.Get(&other, "SELECT CAST(id AS CHAR) FROM shows WHERE id <> ? ORDER BY id LIMIT 1", show); err != nil {
		t.Fatal(err)
	}
	for _, body := range []map[string]any{
		{"code": "HALF-OFF", "max_uses": 5, "percent_off": 50},
		{"code": "ONE-SEAT", "max_uses": 1, "amount_off_minor": 100},
		{"code": "OTHER-SHOW", "max_uses": 5, "percent_off": 50, "ticket_types": []string{"adult"}, "show_ids": []string{other}},
		{"code": "NOT-YET", "max_uses": 5, "percent_off": 50, "valid_from": a.clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)},
	} {
		if r := a.do("POST", "/api/v1/admin/vouchers", staff, body, nil); r.status != 201 {
			t.Fatalf("%v: %d %s", body, r.status, r.body)
		}
	}
	buyer := a.newUser()
	path := "/api/v1/shows/" + show + "/voucher?seats=" + strings.Join(seats, ",") + "&code="
	r := a.do("GET", path+"half-off", buyer, nil, nil)
	q := r.json(t)
	if r.status != 200 || q["code"] != "HALF-OFF" || q["discount_minor"].(float64) <= 0 || q["total_minor"].(float64) != q["discount_minor"].(float64) {
		t.Fatalf("quote: %d %s", r.status, r.body)
	}
	if s, _ := q["seats"].([]any); len(s) != 2 {
		t.Errorf("seats: %v", q["seats"])
	}
	for code, says := range map[string]string{"NOPE": "unknown", "ONE-SEAT": "uses left", "OTHER-SHOW": "covers none", "NOT-YET": "not valid yet"} {
		r := a.do("GET", path+code, buyer, nil, nil)
		if r.status != 422 || r.code() != "VOUCHER_INVALID" || !strings.Contains(string(r.body), says) {
			t.Errorf("%s: %d %s, want 422 saying %q", code, r.status, r.body, says)
		}
	}
	if r := a.do("GET", "/api/v1/shows/"+show+"/voucher?code=HALF-OFF", buyer, nil, nil); r.status != 400 {
		t.Errorf("no seats: %d", r.status)
	}
	if r := a.do("GET", path+"HALF-OFF", "", nil, nil); r.status != 401 {
		t.Errorf("signed out: %d", r.status)
	}
}

// TestAdminOrders_CarryTheVoucher: staff's order search answers each order as the buyer
// sees it, so an order booked with a voucher carries its code and saving there too.
func TestAdminOrders_CarryTheVoucher(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(1)
	staff := a.demoToken("staff")
	if r := a.do("POST", "/api/v1/admin/vouchers", staff, map[string]any{"code": "TEN-OFF", "max_uses": 5, "percent_off": 10,
		"show_ids": []string{show}}, nil); r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	buyer := a.newUser()
	r := a.do("POST", "/api/v1/shows/"+show+"/orders", buyer, map[string]any{"seat_ids": seats, "voucher": "ten-off"}, nil)
	if r.status != 201 {
		t.Fatalf("order: %d %s", r.status, r.body)
	}
	mine := r.json(t)
	var list struct {
		Orders []struct {
			Voucher       string `json:"voucher"`
			DiscountMinor *int64 `json:"discount_minor"`
			TotalMinor    int64  `json:"total_minor"`
		} `json:"orders"`
	}
	got := a.do("GET", "/api/v1/admin/orders?order_no="+mine["order_no"].(string), staff, nil, nil)
	if json.Unmarshal(got.body, &list) != nil || len(list.Orders) != 1 {
		t.Fatalf("search: %d %s", got.status, got.body)
	}
	o := list.Orders[0]
	if o.Voucher != "TEN-OFF" || o.DiscountMinor == nil || float64(*o.DiscountMinor) != mine["discount_minor"] || float64(o.TotalMinor) != mine["total_minor"] {
		t.Errorf("staff see %+v, the buyer %v", o, mine)
	}
	// the console's order search has a voucher column: the code and the saving, a dash
	// for an order without one
	plain := a.newUser()
	other, more := a.onSaleShow(1)
	if r := a.do("POST", "/api/v1/shows/"+other+"/orders", plain, map[string]any{"seat_ids": more}, nil); r.status != 201 {
		t.Fatalf("order without a voucher: %d %s", r.status, r.body)
	}
	doc := a.pageDoc(t, "/admin/orders?status=pending", staff)
	if head := doc.Find("table.orders-table thead").Text(); !strings.Contains(head, "Voucher") {
		t.Errorf("the orders table's head %q has no voucher column", head)
	}
	saving := views.Money(int64(mine["discount_minor"].(float64)), mine["currency"].(string))
	cells := map[string]string{}
	doc.Find("table.orders-table tbody tr").Each(func(_ int, tr *goquery.Selection) {
		cells[strings.TrimSpace(tr.Find("a.order-no").Text())] = strings.Join(strings.Fields(tr.Find("[data-order-voucher]").Text()), " ")
	})
	if got := cells[mine["order_no"].(string)]; got != "TEN-OFF −"+saving {
		t.Errorf("the voucher cell of the order with TEN-OFF reads %q, want %q (rows %v)", got, "TEN-OFF −"+saving, cells)
	}
	for no, cell := range cells {
		if no != mine["order_no"].(string) && cell != "—" {
			t.Errorf("order %s without a voucher: the cell reads %q", no, cell)
		}
	}
}

// TestFreeOrder_PaidAtOnce_API: an order a 100 % voucher brings to 0 is paid by POST
// .../pay at once, without the provider: 200 with payment_id null, paid true and the
// order's page to go to; the order reads paid with its total 0; paying again is 409.
func TestFreeOrder_PaidAtOnce_API(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(2)
	staff := a.demoToken("staff")
	if r := a.do("POST", "/api/v1/admin/vouchers", staff, map[string]any{"code": "ON-THE-HOUSE", "max_uses": 5, "percent_off": 100}, nil); r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	buyer := a.newUser()
	r := a.do("POST", "/api/v1/shows/"+show+"/orders", buyer, map[string]any{"seat_ids": seats, "voucher": "on-the-house"}, nil)
	if r.status != 201 || r.json(t)["total_minor"] != float64(0) {
		t.Fatalf("order: %d %s", r.status, r.body)
	}
	no := r.json(t)["order_no"].(string)
	pay := a.do("POST", "/api/v1/orders/"+no+"/pay", buyer, nil, nil)
	got := pay.json(t)
	if pay.status != 200 || got["payment_id"] != nil || got["paid"] != true || got["redirect_url"] != "/orders/"+no {
		t.Fatalf("pay: %d %s", pay.status, pay.body)
	}
	if o := a.do("GET", "/api/v1/orders/"+no, buyer, nil, nil).json(t); o["status"] != "paid" || o["total_minor"] != float64(0) {
		t.Errorf("the order after paying: %v", o)
	}
	if again := a.do("POST", "/api/v1/orders/"+no+"/pay", buyer, nil, nil); again.status != 409 {
		t.Errorf("paying again: %d %s", again.status, again.body)
	}
}
