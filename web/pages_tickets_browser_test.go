package web

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"seatflow/views"
)

// TestBrowserTickets_PickerAsksTypesShowsTotalAndBooks: on a show that sells child
// tickets beside adult, the picker asks after the seats how many are child (adult the
// rest), with each type's price and the door note; typing a count with the keyboard
// gives the total before booking, in English and Chinese, at 1280 and 375 px, and axe
// finds nothing serious; the selection summary (naming the child seat at its price)
// and the phones' bottom bar say the same total. Booking sends the counts: the order page lists one child seat
// at the child price and the total the picker said.
func TestBrowserTickets_PickerAsksTypesShowsTotalAndBooks(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	if r := a.do("POST", "/api/v1/admin/ticket-types", staff, map[string]any{"code": "child", "name": "Child", "name_zh": "儿童",
		"note": "ID required at the door", "note_zh": "入场时请出示证件"}, nil); r.status != 201 {
		t.Fatalf("create child: %d %s", r.status, r.body)
	}
	show := a.showInHall("Hall 1")
	detail := a.do("GET", "/api/v1/shows/"+show, "", nil, nil).json(t)
	zone := detail["zones"].([]any)[0].(map[string]any)
	code, adult, currency := zone["code"].(string), int64(zone["price_minor"].(float64)), zone["currency"].(string)
	const child = 2500
	if r := a.do("PATCH", "/api/v1/admin/shows/"+show, staff, map[string]any{"ticket_prices": []map[string]any{{"type": "child", "zone": code, "price_minor": child}}}, nil); r.status != 200 {
		t.Fatalf("price child: %d %s", r.status, r.body)
	}
	row, ids := a.freeRow(show)
	s1, s2 := ids[row+"3"], ids[row+"4"]
	want := views.Money(adult+child, currency)
	ctx := newBrowser(t)
	uxRegister(t, ctx, a)
	for _, lang := range []string{"en", "zh-Hans"} {
		for _, w := range axeWidths {
			name := "tickets-" + lang + "-" + strconv.FormatInt(w.width, 10)
			opts := []chromedp.EmulateViewportOption{}
			if w.mobile {
				opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch)
			}
			if err := chromedp.Do(ctx,
				chromedp.EmulateViewport(w.width, w.height, opts...),
				chromedp.Navigate(a.base+"/shows/"+show+"?lang="+lang),
				chromedp.WaitVisible(chromedp.CSS(`#seat-tickets-child`)),
			); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			tick(t, ctx, s1, s2)
			// the count is typed, as a keyboard user would
			evalJS[bool](t, ctx, `(() => { const i = document.querySelector('#seat-tickets-child'); i.focus(); i.select(); return true; })()`)
			if err := chromedp.Do(ctx, chromedp.KeyEvent("1")); err != nil {
				t.Fatalf("%s: typing the count: %v", name, err)
			}
			total := evalJS[string](t, ctx, `(() => { const n = document.querySelector('.seat-form [data-ticket-total]'); return n.hidden ? '' : n.textContent; })()`)
			if !strings.Contains(total, want) {
				t.Errorf("%s: the total says %q, want %s", name, total, want)
			}
			// every total on the page is the typed one: the summary and the phones' bar too
			for what, sel := range map[string]string{"summary": "[data-summary-total]", "bar": "[data-bar-summary]"} {
				if got := evalJS[string](t, ctx, `document.querySelector('`+sel+`').textContent`); !strings.Contains(got, want) {
					t.Errorf("%s: the %s says %q, want %s", name, what, got, want)
				}
			}
			text := evalJS[string](t, ctx, `document.querySelector('.seat-form [data-ticket-counts]').innerText`)
			note, childName := "ID required at the door", "Child"
			if lang == "zh-Hans" {
				note, childName = "入场时请出示证件", "儿童"
			}
			if !strings.Contains(text, note) || !strings.Contains(text, childName) || !strings.Contains(text, views.Money(child, currency)) {
				t.Errorf("%s: the ticket types read %q", name, text)
			}
			if rows := evalJS[string](t, ctx, `document.querySelector('[data-summary-rows]').textContent`); !strings.Contains(rows, childName) || !strings.Contains(rows, views.Money(child, currency)) {
				t.Errorf("%s: the summary lists %q, want a %s seat at %s", name, rows, childName, views.Money(child, currency))
			}
			screenshot(t, ctx, name)
			checkAxe(t, ctx, name)
		}
	}
	if err := chromedp.Do(ctx,
		chromedp.EmulateViewport(1280, 900),
		chromedp.Navigate(a.base+"/shows/"+show+"?lang=en"),
		chromedp.WaitVisible(chromedp.CSS(`#seat-tickets-child`)),
	); err != nil {
		t.Fatal(err)
	}
	tick(t, ctx, s1, s2)
	if err := chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`#seat-tickets-child`), "1"),
		chromedp.Click(chromedp.CSS(`.seat-form .form-actions button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`table.order-seats`)),
	); err != nil {
		t.Fatalf("booking: %v", err)
	}
	types := evalJS[string](t, ctx, `Array.from(document.querySelectorAll('table.order-seats [data-ticket-type]')).map(x => x.getAttribute('data-ticket-type')).sort().join(',')`)
	total := evalJS[string](t, ctx, `document.querySelector('table.order-seats .total').textContent`)
	if types != "adult,child" || total != want {
		t.Errorf("the order page: types %q, total %q, want adult,child and %s", types, total, want)
	}
	screenshot(t, ctx, "tickets-order-en-1280")
}
