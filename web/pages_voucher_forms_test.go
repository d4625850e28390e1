package web

import (
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"seatflow/views"
)

// TestPages_VoucherInTheBookingForms: the voucher code goes with both booking forms and
// comes back as typed. Without JavaScript, "Show the total" brings the page back with
// the code in its field and what it saves on the typed seats; the best-available form
// has the field too, and its check prices its quantity and types in its zone; a
// booking refused for the code comes back with the code kept and the reason in the
// page's language (Chinese as specific as English).
func TestPages_VoucherInTheBookingForms(t *testing.T) {
	a := newTestApp(t, nil)
	const child = 2500
	show, adult, currency, s1, s2 := a.childShow(t, child)
	staff := a.demoToken("staff")
	if r := a.do("POST", "/api/v1/admin/vouchers", staff, map[string]any{"code": "FAMILY-20", "max_uses": 100, "percent_off": 20}, nil); r.status != 201 {
		t.Fatalf("voucher: %d %s", r.status, r.body)
	}
	if r := a.do("POST", "/api/v1/admin/vouchers", staff, map[string]any{"code": "ENDED-CODE", "max_uses": 100, "percent_off": 20}, nil); r.status != 201 {
		t.Fatalf("voucher: %d %s", r.status, r.body)
	}
	if r := a.do("PATCH", "/api/v1/admin/vouchers/ENDED-CODE", staff, map[string]any{"active": false}, nil); r.status != 200 {
		t.Fatalf("end voucher: %d %s", r.status, r.body)
	}
	after := adult*80/100 + child*80/100
	saving, total := views.Money(adult+child-after, currency), views.Money(after, currency)
	token := a.newUser()
	page := "/shows/" + show

	t.Run("show the total without JavaScript keeps the code and shows the saving", func(t *testing.T) {
		r := a.postPage(page, page+"/book", token, url.Values{"seat": {s1, s2}, "tickets_child": {"1"}, "voucher": {" family-20 "}, "preview": {"1"}})
		back := r.header.Get("Location")
		if r.status != 303 || !strings.Contains(back, "voucher=family-20") {
			t.Fatalf("show the total: %d to %q", r.status, back)
		}
		doc := a.pageDoc(t, back, token)
		if v, _ := doc.Find("#seat-voucher").Attr("value"); v != "family-20" {
			t.Errorf("the code came back as %q", v)
		}
		got := doc.Find("#seat-voucher-result .voucher-ok").Text()
		if !strings.Contains(got, "FAMILY-20") || !strings.Contains(got, saving) || !strings.Contains(got, total) {
			t.Errorf("the page says %q, want the saving %s and the total %s", got, saving, total)
		}
		if got, row := doc.Find("[data-summary-total]").Text(), doc.Find("[data-summary-voucher]:not([hidden])").Text(); got != total || !strings.Contains(row, "−"+saving) {
			t.Errorf("the selection summary's total %q and voucher row %q, want %s and −%s", got, row, total, saving)
		}
	})

	t.Run("the best-available form has the field and its check", func(t *testing.T) {
		doc := a.pageDoc(t, page, token)
		if doc.Find(`form.best-form input[name="voucher"]#best-voucher`).Length() != 1 {
			t.Fatal("the best-available form has no voucher field")
		}
		zone := doc.Find(`#best-zone option`).First().AttrOr("value", "")
		for _, tc := range []struct {
			name, query, want string
		}{
			{"one child, one adult", "quantity=2&tickets_child=1", "FAMILY-20"},
			{"too many child tickets", "quantity=1&tickets_child=2", "More tickets"},
			{"an ended code", "quantity=2&voucher=ended-code", "ENDED-CODE has ended"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				q := "zone=" + url.QueryEscape(zone) + "&" + tc.query
				if !strings.Contains(tc.query, "voucher=") {
					q += "&voucher=family-20"
				}
				r := a.getPage(views.VoucherPreviewURL(mustID(t, show))+"?"+q, token)
				body := string(r.body)
				if r.status != 200 || !strings.Contains(body, tc.want) {
					t.Fatalf("%s: %d %s, want %q", q, r.status, body, tc.want)
				}
				if tc.name == "one child, one adult" && (!strings.Contains(body, saving) || !strings.Contains(body, total)) {
					t.Errorf("the check says %s, want the saving %s and the total %s", body, saving, total)
				}
			})
		}
	})

	for _, tc := range []struct {
		lang, want string
	}{
		{"en", "The voucher ENDED-CODE has ended."},
		{"zh-Hans", "优惠码 ENDED-CODE 已停用。"},
	} {
		t.Run("a refused booking keeps the code and says why in "+tc.lang, func(t *testing.T) {
			s := a.consoleSession(token)
			s.get(page + "?lang=" + tc.lang)
			status, loc, _ := s.post(page+"/book", url.Values{"seat": {s1}, "voucher": {"ended-code"}})
			if status != 303 {
				t.Fatalf("book: %d", status)
			}
			_, body := s.get(loc)
			doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if got := doc.Find(".alert, [role=alert]").Text(); !strings.Contains(got, tc.want) {
				t.Errorf("the page says %q, want %q", got, tc.want)
			}
			if v, _ := doc.Find("#seat-voucher").Attr("value"); v != "ended-code" {
				t.Errorf("the code came back as %q", v)
			}
		})
	}

	// The seat rows list what each seat costs before the voucher and the voucher row
	// takes its saving off once: before, the rows showed the discounted prices and the
	// voucher row took the saving off again, so the page's lines did not add up.
	t.Run("the order page's seat prices less the voucher make the total", func(t *testing.T) {
		r := a.postPage(page, page+"/book", token, url.Values{"seat": {s1, s2}, "tickets_child": {"1"}, "voucher": {"family-20"}})
		loc := r.header.Get("Location")
		if r.status != 303 || !strings.Contains(loc, "/orders/") {
			t.Fatalf("book: %d to %q", r.status, loc)
		}
		doc := a.pageDoc(t, loc, token)
		var prices []string
		doc.Find("table.order-seats tbody td:last-child").Each(func(_ int, s *goquery.Selection) {
			prices = append(prices, strings.TrimSpace(s.Text()))
		})
		want := []string{views.Money(adult, currency), views.Money(child, currency)}
		if len(prices) != 2 || !(prices[0] == want[0] && prices[1] == want[1] || prices[0] == want[1] && prices[1] == want[0]) {
			t.Errorf("seat prices %q, want %q (before the voucher)", prices, want)
		}
		if got := strings.TrimSpace(doc.Find("table.order-seats .order-voucher td").Text()); got != "−"+saving {
			t.Errorf("voucher row %q, want −%s", got, saving)
		}
		if got := strings.TrimSpace(doc.Find("table.order-seats .total").Text()); got != total {
			t.Errorf("total %q, want %s", got, total)
		}
	})
}
