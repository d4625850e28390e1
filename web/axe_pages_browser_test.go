package web

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"seatflow/services/demo"
)

// axePage is a GET page of the site checked with axe: its name in the subtest, its path,
// and the browser it is seen in (anonymous, the customer's or the admin's).
type axePage struct {
	name, path string
	who        string // "anon", "customer" or "admin"
}

// TestAxeBrowser_EveryPage runs axe-core on every GET HTML page of the site — the buyer
// pages signed out and as a customer with a pending, a paying and a paid order, and
// every console page as the admin — at 1280 px and at a 375 × 667 phone, in English and
// in Chinese (the console is English whatever the language: handlers.Lang leaves
// /admin alone, so its pages run in English only), one subtest per page, width and
// language (TestAxeBrowser_EveryPage/ticket/375/zh-Hans runs alone). A serious or
// critical violation, or a page without a level-one heading, fails its subtest.
func TestAxeBrowser_EveryPage(t *testing.T) {
	a := newTestApp(t, nil)
	admin := a.demoToken("admin")
	staff := a.demoToken("staff")
	customer := a.demoToken("customer")
	cat := a.pickCatalog(staff)
	show, seats := a.onSaleShow(4) // the purchase limit is 4 per buyer
	pending := a.orderSeats(customer, show, seats[:1])
	paying := a.orderSeats(customer, show, seats[1:2])
	pr := a.do("POST", "/api/v1/orders/"+paying+"/pay", customer, nil, nil)
	if pr.status != 200 {
		t.Fatalf("pay %s: %d %s", paying, pr.status, pr.body)
	}
	payment := pr.json(t)["payment_id"].(string)
	paid := a.orderSeats(customer, show, seats[2:4])
	a.payOrder(customer, paid)
	// a show whose waiting room is on, and a sold-out one with its waiting list
	room := a.queueShows(1, true)[0]
	a.setRoom(staff, room, 30)
	soldOut, ids := a.tinyShow("Axe Studio", "SS", nil)
	other, _ := a.registerAs(fmt.Sprintf("axe.other%d@example.test", time.Now().UnixNano()))
	a.orderSeats(other, soldOut, []string{ids["A1"], ids["A2"]})
	run := a.do("POST", "/api/v1/admin/reconcile", admin, map[string]any{"dry_run": true}, nil)
	if run.status != 200 && run.status != 201 && run.status != 202 {
		t.Fatalf("reconcile run: %d %s", run.status, run.body)
	}
	runID := run.json(t)["run_id"].(string)
	var mail int64
	if err := a.DB.Get(&mail, "SELECT MIN(id) FROM mail_outbox WHERE order_no = ?", paid); err != nil {
		t.Fatalf("the paid order's e-mail: %v", err)
	}
	hall := a.hallOfShow(show)
	big := a.bigHallShow("Axe Arena", demo.StadiumOptions{Rows: 60, Cols: 80}, 0.7).show // shown by section
	if r := a.do("POST", "/api/v1/admin/vouchers", staff, map[string]any{"code": "AXE-10", "max_uses": 10, "percent_off": 10}, nil); r.status != 201 {
		t.Fatalf("voucher: %d %s", r.status, r.body)
	}

	pages := []axePage{
		{name: "home", path: "/", who: "anon"},
		{name: "movie", path: "/movies/" + cat.movie, who: "anon"},
		{name: "show", path: "/shows/" + show, who: "anon"},
		{name: "show-signed-in", path: "/shows/" + show, who: "customer"},
		{name: "show-sold-out", path: "/shows/" + soldOut, who: "customer"},
		{name: "show-sections", path: "/shows/" + big, who: "anon"},
		{name: "show-section", path: "/shows/" + big + "?section=6", who: "customer"},
		{name: "login", path: "/login", who: "anon"},
		{name: "register", path: "/register", who: "anon"},
		{name: "password-forgot", path: "/password/forgot", who: "anon"},
		{name: "password-reset", path: "/password/reset?token=not-a-token", who: "anon"},
		{name: "not-found", path: "/no-such-page", who: "anon"},
		{name: "queue", path: "/shows/" + room + "/queue", who: "customer"},
		{name: "orders", path: "/orders/", who: "customer"},
		{name: "order-pending", path: "/orders/" + pending, who: "customer"},
		{name: "order-paying", path: "/orders/" + paying, who: "customer"},
		{name: "order-paid", path: "/orders/" + paid, who: "customer"},
		{name: "ticket", path: "/orders/" + paid + "/ticket", who: "customer"},
		{name: "pay-demo", path: "/pay/demo/" + payment, who: "customer"},

		{name: "console-dashboard", path: "/admin/", who: "admin"},
		{name: "console-movies", path: "/admin/movies", who: "admin"},
		{name: "console-movie", path: "/admin/movies/" + cat.movie, who: "admin"},
		{name: "console-halls", path: "/admin/halls", who: "admin"},
		{name: "console-hall-new", path: "/admin/halls/new", who: "admin"},
		{name: "console-hall-edit", path: "/admin/halls/" + hall, who: "admin"},
		{name: "console-shows", path: "/admin/shows?date=" + cat.today, who: "admin"},
		{name: "console-show-new", path: "/admin/shows/new", who: "admin"},
		{name: "console-show", path: "/admin/shows/" + show, who: "admin"},
		{name: "console-show-waiting-room", path: "/admin/shows/" + room, who: "admin"},
		{name: "console-show-sold-out", path: "/admin/shows/" + soldOut, who: "admin"},
		{name: "console-show-cancel", path: "/admin/shows/" + show + "/cancel", who: "admin"},
		{name: "console-show-seats", path: "/admin/shows/" + show + "/seats", who: "admin"},
		{name: "console-show-seats-sections", path: "/admin/shows/" + big + "/seats", who: "admin"},
		{name: "console-show-seats-section", path: "/admin/shows/" + big + "/seats?section=6", who: "admin"},
		{name: "console-show-door", path: "/admin/shows/" + show + "/door", who: "admin"},
		{name: "console-door", path: "/admin/door", who: "admin"},
		{name: "console-orders", path: "/admin/orders", who: "admin"},
		{name: "console-orders-search", path: "/admin/orders?q=" + paid, who: "admin"},
		{name: "console-order", path: "/admin/orders/" + paid, who: "admin"},
		{name: "console-audit", path: "/admin/audit", who: "admin"},
		{name: "console-vouchers", path: "/admin/vouchers", who: "admin"},
		{name: "console-voucher", path: "/admin/vouchers/AXE-10", who: "admin"},
		{name: "console-users", path: "/admin/users/", who: "admin"},
		{name: "console-cinemas", path: "/admin/cinemas/", who: "admin"},
		{name: "console-reconcile", path: "/admin/reconcile/", who: "admin"},
		{name: "console-reconcile-run", path: "/admin/reconcile/runs/" + runID, who: "admin"},
		{name: "console-mailbox", path: "/admin/mailbox/", who: "admin"},
		{name: "console-mail", path: fmt.Sprintf("/admin/mailbox/%d", mail), who: "admin"},
	}

	// one browser; a browser context (cookies) of its own for each visitor, one tab each
	ctx := newBrowser(t)
	tabs := map[string]context.Context{}
	for _, who := range []string{"anon", "customer", "admin"} {
		tabs[who] = axeTab(t, ctx, 20*time.Minute) // about 2 to 6 s a case on a busy machine
		if who == "anon" {
			continue
		}
		if err := a.signIn(tabs[who], who, "/orders/", `main`); err != nil {
			t.Fatalf("sign in as %s: %v", who, err)
		}
	}

	for _, p := range pages {
		langs := []string{"en", "zh-Hans"}
		if p.who == "admin" {
			langs = langs[:1]
		}
		for _, w := range axeWidths {
			for _, lang := range langs {
				t.Run(p.name+"/"+w.name+"/"+lang, func(t *testing.T) {
					tab := tabs[p.who]
					if err := setViewport(tab, w); err != nil {
						t.Fatal(err)
					}
					u := a.base + p.path
					if p.who != "admin" {
						sep := "?"
						if strings.Contains(p.path, "?") {
							sep = "&"
						}
						u += sep + "lang=" + lang // the switcher's link: kept in a cookie, then the page without it
					}
					if err := chromedp.Do(tab, chromedp.Navigate(u), chromedp.WaitVisible(chromedp.CSS(`body`))); err != nil {
						t.Fatalf("open %s: %v", u, err)
					}
					if p.who != "admin" {
						got, err := chromedp.Run(tab, chromedp.Evaluate[string](`document.documentElement.lang`))
						if err != nil || got != lang {
							t.Fatalf("%s is in %q, want %s (%v)", p.path, got, lang, err)
						}
					}
					checkAxe(t, tab, p.name+" at "+w.name+" px in "+lang)
					screenshot(t, tab, "axe-"+p.name+"-"+w.name+"-"+lang)
				})
			}
		}
	}
}
