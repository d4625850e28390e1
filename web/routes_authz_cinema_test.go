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
// and a paid order of it, B (made here) with a hall and a show, and a staff member
// limited to B.
type cinemaFixture struct {
	admin, limited, limitedID                string
	cinemaA, cinemaB                         string
	hallA, showA, seatA, orderA, refA, hallB string
	showB                                    string
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

	f.limited, f.limitedID = a.registerAs("limited-" + strings.ReplaceAll(t.Name(), "/", "-") + "@example.test")
	r = a.do("PATCH", "/api/v1/admin/users/"+f.limitedID, f.admin, map[string]any{"role": "staff", "cinema_ids": []string{f.cinemaB}}, nil)
	if r.status != 200 {
		t.Fatalf("limit staff to B: %d %s", r.status, r.body)
	}
	return f
}

// TestAuthz_LimitedStaffOnEveryAdminRoute walks every route under /api/v1/admin and
// every GET page under /admin as a staff member limited to cinema B: a route naming a
// hall, show, order or ticket of cinema A answers 403 (the contract's FORBIDDEN on the
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
