package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"seatflow/views"
)

// dashboardView is the part of GET /api/v1/admin/dashboard the tests read.
type dashboardView struct {
	Now        string `json:"now"`
	TimeZone   string `json:"time_zone"`
	TodayShows []struct {
		ShowID         string `json:"show_id"`
		Status         string
		Sold, Held     int
		Free, Sellable int
	} `json:"today_shows"`
	Revenue map[string]struct {
		From, To string
		Totals   []struct {
			Currency    string
			Orders      int
			AmountMinor int64 `json:"amount_minor"`
		}
		ByMovie []struct {
			ID, Name    string
			Orders      int
			AmountMinor int64 `json:"amount_minor"`
		} `json:"by_movie"`
		ByHall []struct {
			ID, Name    string
			AmountMinor int64 `json:"amount_minor"`
		} `json:"by_hall"`
	}
	OrdersPerMinute []struct {
		Start         string
		Created, Paid int
	} `json:"orders_per_minute"`
	Pending struct {
		Count  int
		Oldest []struct {
			OrderNo string `json:"order_no"`
		}
	}
	ExpiryQueue *struct {
		Scheduled      int
		ScheduledTasks []struct {
			OrderNo   string  `json:"order_no"`
			NextRunAt *string `json:"next_run_at"`
		} `json:"scheduled_tasks"`
	} `json:"expiry_queue"`
	LastRun *struct {
		RunID string `json:"run_id"`
	} `json:"last_reconcile_run"`
}

func (v dashboardView) revenue(period string) (int64, int) {
	var amount int64
	n := 0
	for _, t := range v.Revenue[period].Totals {
		amount += t.AmountMinor
		n += t.Orders
	}
	return amount, n
}

func (v dashboardView) minutes() (created, paid int) {
	for _, m := range v.OrdersPerMinute {
		created += m.Created
		paid += m.Paid
	}
	return created, paid
}

func (v dashboardView) show(id string) (sold, held int, ok bool) {
	for _, s := range v.TodayShows {
		if s.ShowID == id {
			return s.Sold, s.Held, true
		}
	}
	return 0, 0, false
}

// dashboard reads the dashboard API as token.
func (a *testApp) dashboard(token string) dashboardView {
	a.t.Helper()
	r := a.do("GET", "/api/v1/admin/dashboard", token, nil, nil)
	var v dashboardView
	if r.status != 200 || json.Unmarshal(r.body, &v) != nil {
		a.t.Fatalf("dashboard: %d %s", r.status, r.body)
	}
	return v
}

// dashboardHTML GETs /admin with the session cookie of token and extra headers.
func (a *testApp) dashboardHTML(token string, hdr map[string]string) (int, string) {
	a.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, a.base+"/admin", nil)
	req.AddCookie(&http.Cookie{Name: "sf_session", Value: token})
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	res, err := noRedirect.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// bookForDashboard books n seats as a fresh customer on a show of today when one is on
// sale (else any show on sale), returning the show, the buyer and the order.
func (a *testApp) bookForDashboard(staff string, n int) (show, buyer, orderNo string, total int64) {
	a.t.Helper()
	show, seats := a.onSaleShow(n)
	for _, s := range a.dashboard(staff).TodayShows {
		if s.Status != "on_sale" {
			continue
		}
		if free := a.freeSeats(s.ShowID, n); len(free) == n {
			show, seats = s.ShowID, free
			break
		}
	}
	buyer = a.newUser()
	r := a.do("POST", "/api/v1/shows/"+show+"/orders", buyer, map[string]any{"seat_ids": seats}, nil)
	if r.status != 201 {
		a.t.Fatalf("order: %d %s", r.status, r.body)
	}
	var o struct {
		OrderNo    string `json:"order_no"`
		TotalMinor int64  `json:"total_minor"`
	}
	json.Unmarshal(r.body, &o)
	return show, buyer, o.OrderNo, o.TotalMinor
}

// payForDashboard pays an order with the demo provider, approved.
func (a *testApp) payForDashboard(buyer, orderNo string) {
	a.t.Helper()
	pr := a.do("POST", "/api/v1/orders/"+orderNo+"/pay", buyer, nil, nil)
	if pr.status != 200 {
		a.t.Fatalf("pay: %d %s", pr.status, pr.body)
	}
	if _, err := a.Payments.DemoDecide(context.Background(), pr.json(a.t)["payment_id"].(string), true); err != nil {
		a.t.Fatal(err)
	}
}

// TestAdminDashboard_API: a booking shows up as a pending order, an order of the last
// hour and a scheduled expiry task; its payment moves its total into today's and this
// week's revenue and its seats from held to sold; a refund takes the money out again.
func TestAdminDashboard_API(t *testing.T) {
	a := newTestApp(t, nil)
	staff, cust := a.demoToken("staff"), a.newUser()
	if r := a.do("GET", "/api/v1/admin/dashboard", "", nil, nil); r.status != 401 || r.code() != "UNAUTHENTICATED" {
		t.Errorf("anonymous: %d %s", r.status, r.body)
	}
	if r := a.do("GET", "/api/v1/admin/dashboard", cust, nil, nil); r.status != 403 || r.code() != "FORBIDDEN" {
		t.Errorf("customer: %d %s", r.status, r.body)
	}
	before := a.dashboard(staff)
	if len(before.OrdersPerMinute) != 60 || before.TimeZone != a.Cfg.Location().String() || before.ExpiryQueue == nil {
		t.Fatalf("dashboard: %d minutes, zone %q, expiry %v", len(before.OrdersPerMinute), before.TimeZone, before.ExpiryQueue)
	}
	show, buyer, no, total := a.bookForDashboard(staff, 2)
	_, _, today := before.show(show)

	booked := a.dashboard(staff)
	if booked.Pending.Count != before.Pending.Count+1 {
		t.Errorf("pending %d after a booking, want %d", booked.Pending.Count, before.Pending.Count+1)
	}
	if c0, _ := before.minutes(); func() int { c, _ := booked.minutes(); return c }() != c0+1 {
		t.Errorf("orders in the last hour did not grow by one: %v", booked.OrdersPerMinute[55:])
	}
	if booked.ExpiryQueue.Scheduled != before.ExpiryQueue.Scheduled+1 {
		t.Errorf("scheduled expiry tasks %d, want %d", booked.ExpiryQueue.Scheduled, before.ExpiryQueue.Scheduled+1)
	}
	if sold, held, _ := booked.show(show); today && (held != 2 || sold != 0) {
		t.Errorf("today's show %s: sold %d held %d, want 0 and 2", show, sold, held)
	}

	a.payForDashboard(buyer, no)
	paid := a.dashboard(staff)
	for _, period := range []string{"today", "week"} {
		amt0, n0 := before.revenue(period)
		if amt, n := paid.revenue(period); amt != amt0+total || n != n0+1 {
			t.Errorf("%s: revenue %d in %d orders, want %d in %d", period, amt, n, amt0+total, n0+1)
		}
		if len(paid.Revenue[period].ByMovie) == 0 || len(paid.Revenue[period].ByHall) == 0 {
			t.Errorf("%s: no lines by movie or hall", period)
		}
	}
	if paid.Pending.Count != before.Pending.Count || paid.ExpiryQueue.Scheduled != before.ExpiryQueue.Scheduled {
		t.Errorf("after payment: pending %d, scheduled %d; want %d and %d", paid.Pending.Count,
			paid.ExpiryQueue.Scheduled, before.Pending.Count, before.ExpiryQueue.Scheduled)
	}
	if _, p := paid.minutes(); p < 1 {
		t.Error("no payment counted in the last hour")
	}
	if sold, held, _ := paid.show(show); today && (held != 0 || sold != 2) {
		t.Errorf("today's show %s: sold %d held %d, want 2 and 0", show, sold, held)
	}

	if r := a.do("POST", "/api/v1/admin/orders/"+no+"/refund", staff, map[string]any{"reason": "test"}, nil); r.status != 200 {
		t.Fatalf("refund: %d %s", r.status, r.body)
	}
	refunded := a.dashboard(staff)
	if amt, n := refunded.revenue("today"); amt != func() int64 { x, _ := before.revenue("today"); return x }() || n != func() int { _, y := before.revenue("today"); return y }() {
		t.Errorf("refunded order still counted: %d in %d orders", amt, n)
	}
}

// TestAdminDashboard_Page: staff see the dashboard with the paid order's money, the
// chart and the last reconciliation run without the admin-only link; admins get the
// link; customers get 403; an htmx refresh gets the panels only.
func TestAdminDashboard_Page(t *testing.T) {
	a := newTestApp(t, nil)
	staff, admin := a.demoToken("staff"), a.demoToken("admin")
	if st, _ := a.dashboardHTML(a.newUser(), nil); st != 403 {
		t.Errorf("customer: %d, want 403", st)
	}
	st, body := a.dashboardHTML(staff, nil)
	if st != 200 || !strings.Contains(body, "No reconciliation run yet.") {
		t.Fatalf("dashboard before any run: %d\n%s", st, body)
	}
	_, buyer, no, _ := a.bookForDashboard(staff, 2)
	a.payForDashboard(buyer, no)
	r := a.do("POST", "/api/v1/admin/reconcile", admin, map[string]any{"dry_run": true}, nil)
	if r.status != 200 {
		t.Fatalf("reconcile: %d %s", r.status, r.body)
	}
	runURL := views.ReconcileRunURL(int64(mustAtoi(t, r.json(t)["run_id"].(string))))
	v := a.dashboard(staff)
	amount, _ := v.revenue("today")
	created, _ := v.minutes()

	st, body = a.dashboardHTML(staff, nil)
	if st != 200 {
		t.Fatalf("staff: %d", st)
	}
	for _, want := range []string{
		"<h1 class=\"page-title\">Dashboard</h1>",
		views.Money(amount, a.Cfg.Currency),
		views.Plural(created, "order", "orders") + " in the last hour, peak ",
		`<title id="minute-chart-title">Orders per minute, last hour</title>`,
		"Run #" + v.LastRun.RunID,
		"Expiry queue",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("staff dashboard lacks %q", want)
		}
	}
	if strings.Contains(body, runURL) {
		t.Error("staff get the link to the admin-only run report")
	}
	if _, body := a.dashboardHTML(admin, nil); !strings.Contains(body, `href="`+runURL+`"`) {
		t.Error("admins do not get the link to the run report")
	}
	st, part := a.dashboardHTML(staff, map[string]string{"HX-Request": "true"})
	if st != 200 || strings.Contains(part, "<html") || !strings.HasPrefix(strings.TrimSpace(part), `<div id="`+views.DashboardPanelsID+`"`) {
		t.Errorf("htmx refresh: %d %.200s", st, part)
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for _, ch := range s {
		if ch < '0' || ch > '9' {
			t.Fatalf("not a number: %q", s)
		}
		n = n*10 + int(ch-'0')
	}
	return n
}
