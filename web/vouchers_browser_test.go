package web

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestVouchersBrowser: staff see the console's voucher list, one voucher with the
// order that used it and its revenue, and end it with its button; a buyer ticks two
// seats, types a code in lower case and applies it: the saving and the total show
// before booking, and an unknown code says so, in English and Chinese. Every page
// passes axe at 1280 and 375 px (screenshots with SEATFLOW_SCREENSHOTS).
func TestVouchersBrowser(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	show, seats := a.onSaleShow(3)
	for _, body := range []map[string]any{
		{"code": "SPRING-20", "max_uses": 50, "percent_off": 20, "valid_until": a.clock.Now().Add(30 * 24 * time.Hour).UTC().Format(time.RFC3339)},
		{"code": "STAFF-PRICE", "max_uses": 10, "price_minor": 1000, "ticket_types": []string{"adult"}, "show_ids": []string{show}},
	} {
		if r := a.do("POST", "/api/v1/admin/vouchers", staff, body, nil); r.status != 201 {
			t.Fatalf("voucher: %d %s", r.status, r.body)
		}
	}
	if r := a.do("POST", "/api/v1/admin/vouchers/batch", staff, map[string]any{"prefix": "FLYER", "count": 3, "batch": "Flyers", "amount_off_minor": 500}, nil); r.status != 201 {
		t.Fatalf("batch: %d %s", r.status, r.body)
	}
	// an order that used SPRING-20 on one seat, as the order path records it
	buyer := a.newUser()
	no := a.orderSeats(buyer, show, seats[:1])
	if _, err := a.DB.Exec(`INSERT INTO voucher_uses (order_id, seat_id, voucher_id, show_id, discount_minor)
		SELECT o.id, ?, v.id, o.show_id, 900 FROM orders o, vouchers v WHERE o.order_no = ? AND v.code = 'SPRING-20'`, seats[0], no); err != nil {
		t.Fatal(err)
	}
	a.DB.Exec("UPDATE vouchers SET uses = 1 WHERE code = 'SPRING-20'")
	free := a.freeSeats(show, 2)

	ctx := newBrowser(t)
	admin := axeTab(t, ctx, 10*time.Minute)
	if err := a.signIn(admin, "admin", "/admin/vouchers", `main`); err != nil {
		t.Fatal(err)
	}
	customer := axeTab(t, ctx, 10*time.Minute)
	if err := a.signIn(customer, "customer", "/orders/", `main`); err != nil {
		t.Fatal(err)
	}
	open := func(t *testing.T, tab context.Context, path, waitFor string) {
		t.Helper()
		if err := chromedp.Do(tab, chromedp.Navigate(a.base+path), chromedp.WaitVisible(chromedp.CSS(waitFor))); err != nil {
			t.Fatalf("open %s: %v", path, err)
		}
	}
	for _, w := range axeWidths {
		t.Run("console/"+w.name, func(t *testing.T) {
			if err := setViewport(admin, w); err != nil {
				t.Fatal(err)
			}
			open(t, admin, "/admin/vouchers", `main`)
			body := evalJS[string](t, admin, `document.querySelector('main').innerText`)
			for _, want := range []string{"SPRING-20", "20 % off", "1 / 50", "STAFF-PRICE", "Flyers", "Add a batch of codes"} {
				if !strings.Contains(body, want) {
					t.Errorf("list lacks %q", want)
				}
			}
			checkAxe(t, admin, "vouchers at "+w.name)
			screenshot(t, admin, "vouchers-list-"+w.name)
			open(t, admin, "/admin/vouchers?batch=Flyers", `a[download]`)
			screenshot(t, admin, "vouchers-batch-"+w.name)
			open(t, admin, "/admin/vouchers/spring-20", `main`)
			body = evalJS[string](t, admin, `document.querySelector('main').innerText`)
			for _, want := range []string{no, "¥9.00", "Revenue", "Active"} {
				if !strings.Contains(body, want) {
					t.Errorf("voucher page lacks %q: %.500s", want, body)
				}
			}
			checkAxe(t, admin, "voucher at "+w.name)
			screenshot(t, admin, "voucher-detail-"+w.name)
		})
	}
	t.Run("end and reactivate", func(t *testing.T) {
		open(t, admin, "/admin/vouchers/SPRING-20", `main`)
		if err := chromedp.Do(admin, chromedp.Click(chromedp.CSS(`form[action$="/active"] button`)), chromedp.WaitVisible(chromedp.CSS(`form[action$="/active"] .button-primary`))); err != nil {
			t.Fatal(err)
		}
		if r := a.do("GET", "/api/v1/admin/vouchers/SPRING-20", staff, nil, nil); r.json(t)["active"] != false {
			t.Errorf("not ended: %s", r.body)
		}
		if err := chromedp.Do(admin, chromedp.Click(chromedp.CSS(`form[action$="/active"] button`)), chromedp.WaitVisible(chromedp.CSS(`form[action$="/active"] .button-danger`))); err != nil {
			t.Fatal(err)
		}
		if r := a.do("GET", "/api/v1/admin/vouchers/SPRING-20", staff, nil, nil); r.json(t)["active"] != true {
			t.Errorf("not reactivated: %s", r.body)
		}
	})
	for _, w := range axeWidths {
		for _, lang := range []string{"en", "zh-Hans"} {
			t.Run("booking/"+w.name+"/"+lang, func(t *testing.T) {
				if err := setViewport(customer, w); err != nil {
					t.Fatal(err)
				}
				open(t, customer, "/shows/"+show+"?lang="+lang, `#seat-voucher`)
				n := evalJS[int](t, customer, `(() => { const want = new Set(`+jsList(free[:2])+`);
					const f = [...document.querySelectorAll('input[name="seat"]')].filter(x => want.has(x.value) && !x.checked);
					f.forEach(x => x.click()); return document.querySelectorAll('input[name="seat"]:checked').length; })()`)
				if n != 2 {
					t.Fatalf("%d seats ticked", n)
				}
				evalJS[bool](t, customer, `(document.querySelector('#seat-voucher').value = '', true)`)
				if err := chromedp.Do(customer,
					chromedp.Focus(chromedp.CSS(`#seat-voucher`)),
					chromedp.SendKeys(chromedp.CSS(`#seat-voucher`), "spring-20"),
					chromedp.Click(chromedp.CSS(`.voucher-row button`)),
					chromedp.WaitVisible(chromedp.CSS(`#seat-voucher-result .voucher-ok`))); err != nil {
					t.Fatal(err)
				}
				got := evalJS[string](t, customer, `document.querySelector('#seat-voucher-result').innerText`)
				if !strings.Contains(got, "SPRING-20") || !strings.Contains(got, "¥") {
					t.Errorf("preview %q", got)
				}
				evalJS[bool](t, customer, `(document.querySelector('.voucher-field').scrollIntoView({block: 'center'}), true)`)
				checkAxe(t, customer, "booking with a voucher at "+w.name+" in "+lang)
				screenshot(t, customer, "voucher-booking-"+w.name+"-"+lang)
				evalJS[bool](t, customer, `(document.querySelector('#seat-voucher').value = 'NO-SUCH-CODE', true)`)
				if err := chromedp.Do(customer,
					chromedp.Click(chromedp.CSS(`.voucher-row button`)),
					chromedp.WaitVisible(chromedp.CSS(`#seat-voucher-result .voucher-problem`))); err != nil {
					t.Fatal(err)
				}
				problem := evalJS[string](t, customer, `document.querySelector('#seat-voucher-result').innerText`)
				if want := map[string]string{"en": "not a voucher code", "zh-Hans": "不是有效的优惠码"}[lang]; !strings.Contains(problem, want) {
					t.Errorf("unknown code: %q, want %q", problem, want)
				}
				screenshot(t, customer, "voucher-booking-unknown-"+w.name+"-"+lang)
				// untick for the next round
				evalJS[int](t, customer, `(() => { const f = [...document.querySelectorAll('input[name="seat"]:checked')]; f.forEach(x => x.click()); return f.length; })()`)
			})
		}
	}
}

// jsList is ids as a JavaScript array of strings.
func jsList(ids []string) string {
	return `["` + strings.Join(ids, `","`) + `"]`
}
