package web

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// signIn signs the browser in as the demo account of role, landing on next.
func (a *testApp) signIn(ctx context.Context, role, next, waitFor string) error {
	acc := a.accounts[role]
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	return chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/login?next="+next),
		chromedp.WaitVisible(css(`#email`)),
		chromedp.SendKeys(css(`#email`), acc.Email),
		chromedp.SendKeys(css(`#password`), acc.Password),
		chromedp.Submit(css(`#password`)),
		chromedp.WaitVisible(css(waitFor)),
	)
}

// TestAdminOrders_BrowserRefund: staff search an order by the buyer's email (typed in
// capitals), open it, refund it with a reason and the confirmation, and see it refunded
// with the refund in its history; the seats are free again.
func TestAdminOrders_BrowserRefund(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(2)
	buyer, _ := a.registerAs(fmt.Sprintf("lin.buyer%d@example.test", time.Now().UnixNano()))
	email := a.accountEmail(buyer)
	no := a.orderSeats(buyer, show, seats)
	a.payOrder(buyer, no)

	ctx := newBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	if err := a.signIn(ctx, "staff", "/admin/orders", `form[action="/admin/orders"]`); err != nil {
		t.Fatalf("sign in: %v", err)
	}
	screenshot(t, ctx, "admin-orders-search")
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(css(`#email`), strings.ToUpper(email)),
		chromedp.Submit(css(`#email`)),
		chromedp.WaitVisible(css(`#email[value="`+strings.ToUpper(email)+`"]`)), // the page of the search
		chromedp.WaitVisible(css(`a[href="/admin/orders/`+no+`"]`)),
	); err != nil {
		t.Fatalf("search by email: %v", err)
	}
	screenshot(t, ctx, "admin-orders-results")
	if _, rows := browserAt(t, ctx, `table.orders-table tbody`); strings.Count(rows, "@") != 1 || !strings.Contains(rows, email) {
		t.Errorf("search by %s lists other buyers' orders:\n%s", strings.ToUpper(email), rows)
	}
	if err := chromedp.Do(ctx,
		chromedp.Click(css(`a[href="/admin/orders/`+no+`"]`)),
		chromedp.WaitVisible(css(`form[action="/admin/orders/`+no+`/refund"]`)),
	); err != nil {
		t.Fatalf("open the order: %v", err)
	}
	screenshot(t, ctx, "admin-order-paid")
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(css(`#reason`), "show moved, buyer cannot come"),
		chromedp.Click(css(`#confirm`)),
		chromedp.Click(css(`.refund-form button[type="submit"]`)),
		chromedp.WaitVisible(css(`p.success`)),
	); err != nil {
		t.Fatalf("refund: %v", err)
	}
	loc, main := browserAt(t, ctx, `main`)
	screenshot(t, ctx, "admin-order-refunded")
	if !strings.HasSuffix(loc, "/admin/orders/"+no+"?refunded=1") || !strings.Contains(main, "refunded") ||
		!strings.Contains(main, "Order refunded") || !strings.Contains(main, "order.refund") ||
		!strings.Contains(main, "show moved, buyer cannot come") || !strings.Contains(main, a.accounts["staff"].Email) {
		t.Errorf("after the refund: %s\n%s", loc, main)
	}
	for _, s := range seats {
		if st := a.seatState(show, s); st != "free" {
			t.Errorf("seat %s is %s after the refund", s, st)
		}
	}
	if st, _ := a.orderStatus(no); st != "refunded" {
		t.Errorf("order is %s", st)
	}
}

// TestAdminUsers_BrowserChangeRole: the admin finds an account, changes its role to
// staff with the select and the button, sees the notice, and finds the change on the
// audit page.
func TestAdminUsers_BrowserChangeRole(t *testing.T) {
	a := newTestApp(t, nil)
	_, uid := a.registerAs(fmt.Sprintf("new.clerk%d@example.test", time.Now().UnixNano()))
	ctx := newBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	if err := a.signIn(ctx, "admin", "/admin/users", `table.users-table`); err != nil {
		t.Fatalf("sign in: %v", err)
	}
	screenshot(t, ctx, "admin-users")
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(css(`#email`), "NEW.CLERK"),
		chromedp.Submit(css(`#email`)),
		// the filtered list, not the page the search was typed on: its field holds the filter
		chromedp.WaitVisible(css(`#email[value="NEW.CLERK"]`)),
		chromedp.WaitVisible(css(`#role-`+uid)),
		chromedp.SetValue(css(`#role-`+uid), "staff"),
		chromedp.Click(css(`#user-`+uid+` button[type="submit"]`)),
		chromedp.WaitVisible(css(`p.success`)),
	); err != nil {
		t.Fatalf("change role: %v", err)
	}
	_, main := browserAt(t, ctx, `main`)
	screenshot(t, ctx, "admin-users-changed")
	if !strings.Contains(main, "is now staff") || a.userRole(uid) != "staff" {
		t.Errorf("after the change (role %s):\n%s", a.userRole(uid), main)
	}
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/admin/audit?entity=user&entity_id="+uid),
		chromedp.WaitVisible(css(`table.audit-table`)),
	); err != nil {
		t.Fatalf("audit page: %v", err)
	}
	_, rows := browserAt(t, ctx, `table.audit-table tbody`)
	screenshot(t, ctx, "admin-audit")
	if !strings.Contains(rows, "user.role") || !strings.Contains(rows, "customer") || !strings.Contains(rows, "staff") ||
		!strings.Contains(rows, a.accounts["admin"].Email) {
		t.Errorf("audit rows:\n%s", rows)
	}
}
