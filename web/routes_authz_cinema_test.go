package web

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// cinemaFixture is a chain of two cinemas: A (the install's first) with a show on sale
// and a paid order of it, B (made here) with a hall and a show, a voucher in each, and
// a staff member limited to B.
type cinemaFixture struct {
	admin, limited, limitedID                string
	cinemaA, cinemaB                         string
	hallA, showA, seatA, orderA, refA, hallB string
	showB, voucherA, voucherB                string
}

func (a *testApp) cinemaFixture() cinemaFixture {
	a.t.Helper()
	t := a.t
	f := cinemaFixture{admin: a.demoToken("admin")}
	var cinemas struct{ Cinemas []struct{ ID string } }
	if r := a.do("GET", "/api/v1/cinemas", "", nil, nil); r.status != 200 || json.Unmarshal(r.body, &cinemas) != nil || len(cinemas.Cinemas) == 0 {
		t.Fatalf("cinemas: %d %s", r.status, r.body)
	}
	f.cinemaA = cinemas.Cinemas[0].ID
	r := a.do("POST", "/api/v1/admin/cinemas", f.admin, map[string]string{"name": "Riverside", "time_zone": "Asia/Shanghai", "currency": "CNY"}, nil)
	if r.status != 201 {
		t.Fatalf("create cinema: %d %s", r.status, r.body)
	}
	f.cinemaB = r.json(t)["id"].(string)
	r = a.do("POST", "/api/v1/admin/halls", f.admin, map[string]string{"cinema_id": f.cinemaB, "name": "River 1", "layout": "SSSS\nSSSS"}, nil)
	if r.status != 201 {
		t.Fatalf("hall in B: %d %s", r.status, r.body)
	}
	f.hallB = r.json(t)["id"].(string)
	pick := a.pickCatalog(f.admin)
	starts := a.clock.Now().Add(48 * time.Hour).UTC().Truncate(time.Minute)
	r = a.do("POST", "/api/v1/admin/shows", f.admin, map[string]any{"movie_id": pick.movie, "hall_id": f.hallB,
		"starts_at": starts.Format(time.RFC3339), "sale_opens_at": a.clock.Now().Add(-time.Minute).UTC().Format(time.RFC3339),
		"sale_closes_at": starts.Add(-time.Hour).Format(time.RFC3339), "prices": []map[string]any{{"zone": "standard", "price_minor": 4000}}}, nil)
	if r.status != 201 {
		t.Fatalf("show in B: %d %s", r.status, r.body)
	}
	f.showB = r.json(t)["id"].(string)

	var seats []string
	f.showA, seats = a.onSaleShow(1)
	f.seatA = seats[0]
	var show struct{ Hall struct{ ID string } }
	if r := a.do("GET", "/api/v1/shows/"+f.showA, "", nil, nil); r.status != 200 || json.Unmarshal(r.body, &show) != nil {
		t.Fatalf("show A: %d %s", r.status, r.body)
	}
	f.hallA = show.Hall.ID
	buyer := a.newUser()
	f.orderA = a.orderSeats(buyer, f.showA, seats)
	a.payOrder(buyer, f.orderA)
	r = a.do("GET", "/api/v1/orders/"+f.orderA, buyer, nil, nil)
	ref, _ := r.json(t)["ticket_ref"].(string)
	if ref == "" {
		t.Fatalf("paid order without a ticket: %s", r.body)
	}
	f.refA = ref

	f.voucherA, f.voucherB = "CINEMA-A-VOUCHER", "CINEMA-B-VOUCHER"
	for code, cinema := range map[string]string{f.voucherA: f.cinemaA, f.voucherB: f.cinemaB} {
		r = a.do("POST", "/api/v1/admin/vouchers", f.admin, map[string]any{"code": code, "cinema_id": cinema, "max_uses": 5, "percent_off": 10}, nil)
		if r.status != 201 {
			t.Fatalf("voucher %s: %d %s", code, r.status, r.body)
		}
	}

	f.limited, f.limitedID = a.registerAs("limited-" + strings.ReplaceAll(t.Name(), "/", "-") + "@example.test")
	r = a.do("PATCH", "/api/v1/admin/users/"+f.limitedID, f.admin, map[string]any{"role": "staff", "cinema_ids": []string{f.cinemaB}}, nil)
	if r.status != 200 {
		t.Fatalf("limit staff to B: %d %s", r.status, r.body)
	}
	return f
}

// TestAuthz_LimitedStaffOnEveryAdminRoute walks every route under /api/v1/admin and
// every GET page under /admin as a staff member limited to cinema B: a route naming a
// hall, show, order, ticket or voucher of cinema A answers 403 (the contract's FORBIDDEN on the
// API) and changes nothing; the same routes with B's objects are let through; every
// other route is let through (and its list filtered: TestCinemaScope_ListsAreFiltered).
// A route added later is walked too.
func TestAuthz_LimitedStaffOnEveryAdminRoute(t *testing.T) {
	a := newTestApp(t, nil)
	f := a.cinemaFixture()
	type route struct{ method, path string }
	var routes []route
	seen := map[string]bool{}
	for _, r := range a.HTTP.GetRoutes(true) {
		if r.Method == "USE" || r.Method == http.MethodHead || r.Method == http.MethodOptions {
			continue
		}
		api := strings.HasPrefix(r.Path, "/api/v1/admin/")
		page := (r.Path == "/admin" || strings.HasPrefix(r.Path, "/admin/")) && r.Method == http.MethodGet
		if (api || page) && !seen[r.Method+" "+r.Path] {
			seen[r.Method+" "+r.Path] = true
			routes = append(routes, route{r.Method, r.Path})
		}
	}
	sort.Slice(routes, func(i, j int) bool { return routes[i].method+routes[i].path < routes[j].method+routes[j].path })
	if len(routes) < 40 {
		t.Fatalf("only %d admin routes found", len(routes))
	}
	param := regexp.MustCompile(`/(halls|shows|orders|tickets|[a-z_-]+)/(:[a-z_]+)`)
	fill := func(path string, own bool) (string, bool) {
		names := false
		path = param.ReplaceAllStringFunc(path, func(m string) string {
			parts := strings.SplitN(m[1:], "/", 2)
			v := "999999"
			switch parts[0] {
			case "halls":
				v, names = f.hallA, true
				if own {
					v = f.hallB
				}
			case "shows":
				v, names = f.showA, true
				if own {
					v = f.showB
				}
			case "orders":
				v, names = f.orderA, true
				if own {
					v = "NOSUCHORDER"
				}
			case "tickets":
				v, names = url.PathEscape(f.refA), true
				if own {
					v = "NOSUCHREF"
				}
			case "seats":
				v = f.seatA
			case "vouchers":
				v, names = f.voucherA, true
				if own {
					v = f.voucherB
				}
			}
			return "/" + parts[0] + "/" + v
		})
		return path, names
	}
	for _, rt := range routes {
		adminOnly := strings.Contains(rt.path, "/reconcile") || strings.Contains(rt.path, "/admin/users") ||
			strings.Contains(rt.path, "/admin/cinemas") || strings.HasPrefix(rt.path, "/admin/mailbox")
		for _, own := range []bool{false, true} {
			path, names := fill(rt.path, own)
			name := rt.method + " " + path
			t.Run(name, func(t *testing.T) {
				var st int
				var code string
				if strings.HasPrefix(path, "/api/") {
					r := a.do(rt.method, path, f.limited, nil, nil)
					st, code = r.status, r.code()
				} else {
					st = a.page(path, f.limited)
				}
				switch {
				case adminOnly || names && !own:
					if st != http.StatusForbidden {
						t.Errorf("-> %d, want 403", st)
					}
					if strings.HasPrefix(path, "/api/") && code != "FORBIDDEN" {
						t.Errorf("code %q, want FORBIDDEN", code)
					}
				default:
					if st == http.StatusUnauthorized || st == http.StatusForbidden || st >= 500 {
						t.Errorf("-> %d, want let through", st)
					}
				}
			})
		}
	}
	t.Run("cinema A's show and order are unchanged", func(t *testing.T) {
		var s struct{ Status string }
		if r := a.do("GET", "/api/v1/shows/"+f.showA, "", nil, nil); json.Unmarshal(r.body, &s) != nil || s.Status != "on_sale" {
			t.Errorf("show A: %s", r.body)
		}
		var o struct{ Status string }
		if r := a.do("GET", "/api/v1/admin/orders/"+f.orderA, f.admin, nil, nil); json.Unmarshal(r.body, &o) != nil || o.Status != "paid" {
			t.Errorf("order A: %s", r.body)
		}
	})
	t.Run("console door form with A's ticket", func(t *testing.T) {
		r := a.postPage("/admin/door", "/admin/door", f.limited, url.Values{"ref": {f.refA}})
		if r.status != http.StatusForbidden {
			t.Errorf("-> %d, want 403", r.status)
		}
		var o struct {
			AdmittedAt *string `json:"admitted_at"`
		}
		if r := a.do("GET", "/api/v1/admin/tickets/"+url.PathEscape(f.refA), f.admin, nil, nil); json.Unmarshal(r.body, &o) != nil || o.AdmittedAt != nil {
			t.Errorf("ticket A admitted: %s", r.body)
		}
	})
}

// TestCinemaScope_LimitedStaffAPI: a staff member limited to cinema B lists B's halls,
// orders, audit entries and dashboard only (admins see A's too), creates halls and
// shows in B (a hall without cinema_id goes in B) and gets 403 FORBIDDEN for A, with
// nothing created.
func TestCinemaScope_LimitedStaffAPI(t *testing.T) {
	a := newTestApp(t, nil)
	f := a.cinemaFixture()
	ids := func(token, path, list, field string) map[string]bool {
		t.Helper()
		r := a.do("GET", path, token, nil, nil)
		var v map[string][]map[string]any
		if r.status != 200 || json.Unmarshal(r.body, &v) != nil {
			t.Fatalf("GET %s: %d %s", path, r.status, r.body)
		}
		out := map[string]bool{}
		for _, x := range v[list] {
			s, _ := x[field].(string)
			out[s] = true
		}
		return out
	}
	t.Run("lists", func(t *testing.T) {
		for name, tc := range map[string]struct {
			path, list, field string
			own, other        string
		}{
			"halls":  {"/api/v1/admin/halls", "halls", "id", f.hallB, f.hallA},
			"orders": {"/api/v1/admin/orders", "orders", "order_no", "", f.orderA},
			"audit":  {"/api/v1/admin/audit?limit=200", "entries", "cinema_id", f.cinemaB, f.cinemaA},
		} {
			t.Run(name, func(t *testing.T) {
				admin, limited := ids(f.admin, tc.path, tc.list, tc.field), ids(f.limited, tc.path, tc.list, tc.field)
				if !admin[tc.other] || tc.own != "" && !admin[tc.own] {
					t.Errorf("admin: %v, want %q and %q", admin, tc.other, tc.own)
				}
				if limited[tc.other] || tc.own != "" && !limited[tc.own] {
					t.Errorf("limited staff: %v, want %q and not %q", limited, tc.own, tc.other)
				}
			})
		}
	})
	t.Run("dashboard", func(t *testing.T) {
		paid := func(token string) (n int) {
			var v struct {
				Revenue map[string]struct{ Totals []struct{ Orders int } }
				Expiry  *json.RawMessage `json:"expiry_queue"`
			}
			if r := a.do("GET", "/api/v1/admin/dashboard", token, nil, nil); r.status != 200 || json.Unmarshal(r.body, &v) != nil {
				t.Fatalf("dashboard: %d %s", r.status, r.body)
			}
			for _, l := range v.Revenue["today"].Totals {
				n += l.Orders
			}
			return n
		}
		if got := paid(f.admin); got < 1 {
			t.Errorf("admin: %d paid orders today, want A's", got)
		}
		if got := paid(f.limited); got != 0 {
			t.Errorf("limited staff: %d paid orders today, want 0 (A's are not theirs)", got)
		}
	})
	t.Run("console lists", func(t *testing.T) {
		for _, path := range []string{"/admin/orders", "/admin/halls"} {
			admin, limited := a.getPage(path, f.admin), a.getPage(path, f.limited)
			needle := f.orderA
			if path == "/admin/halls" {
				needle = "/admin/halls/" + f.hallA + `"`
			}
			if !strings.Contains(string(admin.body), needle) || admin.status != 200 {
				t.Errorf("admin %s: %d, %q missing", path, admin.status, needle)
			}
			if strings.Contains(string(limited.body), needle) || limited.status != 200 {
				t.Errorf("limited staff %s: %d, %q shown", path, limited.status, needle)
			}
			if path == "/admin/halls" && (!strings.Contains(string(admin.body), `<th scope="col">Cinema</th>`) ||
				!strings.Contains(string(admin.body), `data-cinema="`+f.cinemaB+`">Riverside</td>`)) {
				t.Errorf("admin %s: no cinema column naming Riverside", path)
			}
		}
	})
	t.Run("console orders of A's show", func(t *testing.T) {
		if p := a.getPage("/admin/orders?show_id="+f.showA, f.limited); p.status != 403 || strings.Contains(string(p.body), f.orderA) {
			t.Errorf("limited staff, A's show: %d %.300s", p.status, p.body)
		}
	})
	t.Run("console audit log by cinema", func(t *testing.T) {
		if p := a.getPage("/admin/audit?cinema_id="+f.cinemaA, f.limited); p.status != 403 || !strings.Contains(string(p.body), "works for other cinemas") {
			t.Errorf("limited staff, cinema A: %d %.300s", p.status, p.body)
		}
		p := a.getPage("/admin/audit?cinema_id="+f.cinemaB, f.admin)
		if p.status != 200 || !strings.Contains(string(p.body), `<option value="`+f.cinemaB+`" selected`) || !strings.Contains(string(p.body), "River 1") {
			t.Errorf("admin, cinema B: %d, B not picked or its hall's entry missing", p.status)
		}
	})
	t.Run("writes", func(t *testing.T) {
		pick := a.pickCatalog(f.admin)
		starts := a.clock.Now().Add(72 * time.Hour).UTC().Truncate(time.Minute)
		show := func(hall string) map[string]any {
			return map[string]any{"movie_id": pick.movie, "hall_id": hall, "starts_at": starts.Format(time.RFC3339),
				"sale_opens_at": a.clock.Now().UTC().Format(time.RFC3339), "sale_closes_at": starts.Add(-time.Hour).Format(time.RFC3339),
				"prices": []map[string]any{{"zone": "standard", "price_minor": 4000}}}
		}
		for name, tc := range map[string]struct {
			path   string
			body   any
			status int
			code   string
		}{
			"hall in A":          {"/api/v1/admin/halls", map[string]string{"cinema_id": f.cinemaA, "name": "Not Mine", "layout": "SS"}, 403, "FORBIDDEN"},
			"hall in B":          {"/api/v1/admin/halls", map[string]string{"cinema_id": f.cinemaB, "name": "River 2", "layout": "SS"}, 201, ""},
			"hall, no cinema_id": {"/api/v1/admin/halls", map[string]string{"name": "River 3", "layout": "SS"}, 201, ""},
			"show in A's hall":   {"/api/v1/admin/shows", show(f.hallA), 403, "FORBIDDEN"},
			"show in B's hall":   {"/api/v1/admin/shows", show(f.hallB), 201, ""},
			"audit of A":         {"GET /api/v1/admin/audit?cinema_id=" + f.cinemaA, nil, 403, "FORBIDDEN"},
			"orders of A's show": {"GET /api/v1/admin/orders?show_id=" + f.showA, nil, 403, "FORBIDDEN"},
			"orders of B's show": {"GET /api/v1/admin/orders?show_id=" + f.showB, nil, 200, ""},
			"price cards of A":   {"GET /api/v1/admin/price-cards?cinema_id=" + f.cinemaA, nil, 403, "FORBIDDEN"},
			"price cards of B":   {"GET /api/v1/admin/price-cards?cinema_id=" + f.cinemaB, nil, 200, ""},
			"price card in A":    {"/api/v1/admin/price-cards", map[string]any{"cinema_id": f.cinemaA, "name": "Sneaky", "prices": []map[string]any{{"type": "adult", "zone": "standard", "price_minor": 100}}}, 403, "FORBIDDEN"},
			"price card in B":    {"/api/v1/admin/price-cards", map[string]any{"cinema_id": f.cinemaB, "name": "Mine", "prices": []map[string]any{{"type": "adult", "zone": "standard", "price_minor": 100}}}, 201, ""},
		} {
			t.Run(name, func(t *testing.T) {
				var r apiResp
				if get, ok := strings.CutPrefix(tc.path, "GET "); ok {
					r = a.do("GET", get, f.limited, nil, nil)
				} else {
					r = a.do("POST", tc.path, f.limited, tc.body, nil)
				}
				if r.status != tc.status || tc.code != "" && r.code() != tc.code {
					t.Fatalf("-> %d %s, want %d %s", r.status, r.body, tc.status, tc.code)
				}
				if tc.status == 201 && strings.Contains(tc.path, "halls") && r.json(t)["cinema_id"] != f.cinemaB {
					t.Errorf("hall in cinema %v, want B %s", r.json(t)["cinema_id"], f.cinemaB)
				}
			})
		}
		if n := a.count("SELECT COUNT(*) FROM halls WHERE name = 'Not Mine'") + a.count("SELECT COUNT(*) FROM price_cards WHERE name = 'Sneaky'"); n != 0 {
			t.Errorf("a refused hall or price card was created")
		}
	})
}

// TestAdminUsers_CinemaIDs: admins limit an account to cinemas with PATCH cinema_ids,
// the list shows them, [] is every cinema again; an unknown cinema is 404 and a bad
// list 400, changing nothing (not the role sent with it either); each change is audited.
func TestAdminUsers_CinemaIDs(t *testing.T) {
	a := newTestApp(t, nil)
	f := a.cinemaFixture()
	path := "/api/v1/admin/users/" + f.limitedID
	cinemasOf := func() string {
		t.Helper()
		var v struct {
			Users []struct {
				ID        string
				Role      string
				CinemaIDs []string `json:"cinema_ids"`
			}
		}
		r := a.do("GET", "/api/v1/admin/users?limit=500", f.admin, nil, nil)
		if json.Unmarshal(r.body, &v) != nil {
			t.Fatalf("users: %s", r.body)
		}
		for _, u := range v.Users {
			if u.ID == f.limitedID {
				return u.Role + " " + strings.Join(u.CinemaIDs, ",")
			}
		}
		t.Fatalf("user %s not listed", f.limitedID)
		return ""
	}
	if got := cinemasOf(); got != "staff "+f.cinemaB {
		t.Fatalf("after the fixture: %q", got)
	}
	for _, tc := range []struct {
		name   string
		body   any
		status int
		code   string
		want   string
	}{
		{"unknown cinema", map[string]any{"cinema_ids": []string{"999999"}}, 404, "NOT_FOUND", "staff " + f.cinemaB},
		{"unknown cinema with a role", map[string]any{"role": "customer", "cinema_ids": []string{f.cinemaA, "999999"}}, 404, "NOT_FOUND", "staff " + f.cinemaB},
		{"not ids", map[string]any{"cinema_ids": []string{"two"}}, 400, "INVALID_REQUEST", "staff " + f.cinemaB},
		{"not a list", map[string]any{"cinema_ids": "2"}, 400, "INVALID_REQUEST", "staff " + f.cinemaB},
		{"null", map[string]any{"cinema_ids": nil}, 400, "INVALID_REQUEST", "staff " + f.cinemaB},
		{"nothing", map[string]any{}, 400, "INVALID_REQUEST", "staff " + f.cinemaB},
		{"both cinemas, twice", map[string]any{"cinema_ids": []string{f.cinemaB, f.cinemaA, f.cinemaB}}, 200, "", "staff " + f.cinemaA + "," + f.cinemaB},
		{"every cinema", map[string]any{"cinema_ids": []string{}}, 200, "", "staff "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := a.do("PATCH", path, f.admin, tc.body, nil)
			if r.status != tc.status || tc.code != "" && r.code() != tc.code {
				t.Fatalf("-> %d %s, want %d %s", r.status, r.body, tc.status, tc.code)
			}
			if got := cinemasOf(); got != tc.want {
				t.Errorf("now %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("staff may not", func(t *testing.T) {
		if r := a.do("PATCH", path, a.demoToken("staff"), map[string]any{"cinema_ids": []string{}}, nil); r.status != 403 {
			t.Errorf("-> %d", r.status)
		}
	})
	t.Run("audited", func(t *testing.T) {
		var v struct {
			Entries []struct {
				After struct {
					CinemaIDs []string `json:"cinema_ids"`
				}
			}
		}
		r := a.do("GET", "/api/v1/admin/audit?action=user.cinemas&entity_id="+f.limitedID, f.admin, nil, nil)
		if json.Unmarshal(r.body, &v) != nil || len(v.Entries) != 3 {
			t.Fatalf("user.cinemas entries: %s (want the fixture's, both, every)", r.body)
		}
		if len(v.Entries[0].After.CinemaIDs) != 0 || len(v.Entries[1].After.CinemaIDs) != 2 {
			t.Errorf("entries: %s", r.body)
		}
	})
}
