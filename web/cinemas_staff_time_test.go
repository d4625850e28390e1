package web

import (
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"seatflow/views"
)

// TestCinemaChain_StaffOfOneCinemaSeeItsTime: a London show's order paid at 15:00 UTC
// on Friday 26 March 2027 (15:00 in London, 23:00 in Shanghai, the first cinema's
// zone), read at 17:00 UTC (London's Friday, Shanghai's Saturday already). A staff
// member limited to London sees the dashboard's clock in London time, named, and the
// order in London's revenue of today; the orders list tells its creation in London
// time and the audit log names London's zone. An administrator's audit log tells an
// entry about a show in its cinema's time, and the dashboard names the first cinema's
// zone and sums each cinema's own local day.
func TestCinemaChain_StaffOfOneCinemaSeeItsTime(t *testing.T) {
	a := newTestApp(t, nil)
	f := a.chainFixture(t)
	paidAt, now := chainNow.Add(3*time.Hour), chainNow.Add(5*time.Hour)
	a.clock.Set(time.Until(paidAt))
	a.clock.Freeze()
	_, no := a.chainOrder(t, f.shows["ln-28-1930"])
	a.clock.Set(time.Until(now))
	a.clock.Freeze()
	tok, uid := a.registerAs("london-manager@example.test")
	if r := a.do("PATCH", "/api/v1/admin/users/"+uid, f.admin, map[string]string{"role": "staff"}, nil); r.status != 200 {
		t.Fatalf("make staff: %d %s", r.status, r.body)
	}
	if r := a.postPage("/admin/users", "/admin/users/"+uid+"/cinemas", f.admin, url.Values{"cinema_id": {f.london}}); r.status != 303 {
		t.Fatalf("limit to London: %d %.300s", r.status, r.body)
	}
	contains := func(t *testing.T, what, body string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(body, w) {
				t.Errorf("%s lacks %q", what, w)
			}
		}
	}
	t.Run("the London staff member's dashboard", func(t *testing.T) {
		r := a.getPage("/admin", tok)
		contains(t, "the dashboard", string(r.body), views.RunTime(now, f.londonZ)+"</time> (Europe/London time).")
		if amount, n := a.dashboard(tok).revenue("today"); n != 1 || amount <= 0 {
			t.Errorf("London's revenue of today: %d orders, %d; want the order paid at 15:00 London time", n, amount)
		}
	})
	t.Run("the orders list and the audit log", func(t *testing.T) {
		body := string(a.getPage("/admin/orders", tok).body)
		contains(t, "the orders list", body, AdminOrderHref(no), views.DayTime(paidAt, f.londonZ)+"</time>")
		if strings.Contains(body, views.DayTime(paidAt, f.shanghaiZ)) {
			t.Errorf("the orders list tells Shanghai's time %s", views.DayTime(paidAt, f.shanghaiZ))
		}
		r := a.getPage("/admin/audit", tok)
		contains(t, "the audit log", string(r.body), `When <span class="muted">(Europe/London)</span>`)
	})
	t.Run("the administrator's audit log tells a show's entry in its cinema's time", func(t *testing.T) {
		body := string(a.getPage("/admin/audit", f.admin).body)
		for _, tc := range []struct {
			show string
			loc  *time.Location
		}{{"ln-28-1930", f.londonZ}, {"sh-28-0030", f.shanghaiZ}} {
			var row string
			for _, r := range strings.Split(body, "<tr ")[1:] {
				if strings.Contains(r, "show.create") && regexp.MustCompile(`show\s+`+f.shows[tc.show]+`\s*</td>`).MatchString(r) {
					row = r
				}
			}
			if row == "" {
				t.Fatalf("the audit log has no entry of show %s's creation", tc.show)
			}
			if !strings.Contains(row, views.RunTime(chainNow, tc.loc)) {
				t.Errorf("the entry about show %s does not tell %s", tc.show, views.RunTime(chainNow, tc.loc))
			}
		}
		contains(t, "the audit log", body, "an entry about a show or an order is in its show's cinema's time")
	})
	t.Run("the administrator's dashboard", func(t *testing.T) {
		body := string(a.getPage("/admin", f.admin).body)
		contains(t, "the dashboard", body, views.RunTime(now, f.shanghaiZ)+"</time> (Asia/Shanghai time).", "(each cinema&#39;s local time)")
		if _, n := a.dashboard(f.admin).revenue("today"); n != 1 {
			t.Errorf("the chain's revenue of today: %d orders, want 1 (London's day)", n)
		}
	})
}

// AdminOrderHref is the link to an order's console page as the console writes it.
func AdminOrderHref(no string) string { return `href="` + views.AdminOrderURL(no) + `"` }
