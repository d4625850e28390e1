package web

import (
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestAuthz_EveryAdminRouteHasItsRule walks the app's route table: every route under
// /api/v1/admin and every GET page under /admin is tried as anonymous, customer, staff
// and admin. Reconciliation is for admins only, the rest of the admin API for staff
// and admins; so are users and roles. A route added without its role check fails here.
func TestAuthz_EveryAdminRouteHasItsRule(t *testing.T) {
	a := newTestApp(t, nil)
	tokens := map[string]string{"customer": a.newUser(), "staff": a.demoToken("staff"), "admin": a.demoToken("admin")}
	param := regexp.MustCompile(`:[a-z_]+`)
	seen := map[string]bool{}
	var routes []string
	for _, r := range a.HTTP.GetRoutes(true) {
		if r.Method == "USE" || r.Method == http.MethodHead || r.Method == http.MethodOptions {
			continue
		}
		api := strings.HasPrefix(r.Path, "/api/v1/admin/")
		page := (r.Path == "/admin" || strings.HasPrefix(r.Path, "/admin/")) && r.Method == http.MethodGet // page forms also need a CSRF token
		if !api && !page {
			continue
		}
		// ids no row has: an allowed call answers 404 or 400 and changes nothing
		path := param.ReplaceAllStringFunc(r.Path, func(p string) string {
			if p == ":no" {
				return "NOSUCHORDER"
			}
			return "999999"
		})
		key := r.Method + " " + path
		if !seen[key] {
			seen[key] = true
			routes = append(routes, key)
		}
	}
	sort.Strings(routes)
	if len(routes) < 5 {
		t.Fatalf("only %d admin routes found: %v", len(routes), routes)
	}
	for _, key := range routes {
		method, path, _ := strings.Cut(key, " ")
		adminOnly := strings.Contains(path, "/reconcile") || strings.HasPrefix(path, "/admin/users") || strings.HasPrefix(path, "/api/v1/admin/users") ||
			strings.HasPrefix(path, "/admin/mailbox") ||
			strings.HasPrefix(path, "/api/v1/admin/cinemas") || strings.HasPrefix(path, "/admin/cinemas")
		t.Run(key, func(t *testing.T) {
			send := func(role string) int {
				if strings.HasPrefix(path, "/api/") {
					return a.do(method, path, tokens[role], nil, nil).status
				}
				return a.page(path, tokens[role])
			}
			anon := send("")
			if strings.HasPrefix(path, "/api/") && anon != http.StatusUnauthorized {
				t.Errorf("anonymous -> %d, want 401", anon)
			}
			if !strings.HasPrefix(path, "/api/") && anon != http.StatusSeeOther {
				t.Errorf("anonymous page -> %d, want 303 to sign in", anon)
			}
			if st := send("customer"); st != http.StatusForbidden {
				t.Errorf("customer -> %d, want 403", st)
			}
			st := send("staff")
			if adminOnly && st != http.StatusForbidden {
				t.Errorf("staff -> %d, want 403 (admins only)", st)
			}
			if !adminOnly && (st == http.StatusUnauthorized || st == http.StatusForbidden || st >= 500) {
				t.Errorf("staff -> %d, want allowed", st)
			}
			if st := send("admin"); st == http.StatusUnauthorized || st == http.StatusForbidden || st >= 500 {
				t.Errorf("admin -> %d, want allowed", st)
			}
		})
	}
}

// page GETs a browser page with the session cookie of token ("" for none) and returns
// the status without following redirects.
func (a *testApp) page(path, token string) int {
	a.t.Helper()
	req, err := http.NewRequest(http.MethodGet, a.base+path, nil)
	if err != nil {
		a.t.Fatal(err)
	}
	if token != "" {
		req.AddCookie(&http.Cookie{Name: "sf_session", Value: token})
	}
	res, err := noRedirect.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}
