package web

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// publicAPI are the /api/v1 routes anyone may call; every other route outside
// /api/v1/admin needs a signed-in user.
var publicAPI = map[string]bool{
	"POST /api/v1/auth/register":               true,
	"POST /api/v1/auth/login":                  true,
	"POST /api/v1/auth/password-reset":         true,
	"POST /api/v1/auth/password-reset/confirm": true,
	"GET /api/v1/cinemas":                      true,
	"GET /api/v1/shows":                        true,
	"GET /api/v1/shows/:id":                    true,
	"GET /api/v1/shows/:id/seats":              true,
	"POST /api/v1/payments/:provider/webhook":  true,
	"GET /api/v1/openapi.json":                 true,
}

// TestAuthz_EveryAPIRouteHasItsRule walks the route table's /api/v1 routes outside the
// admin group: the public ones answer an anonymous caller without 401, every other one
// answers 401. A route added without RequireUser (or without being listed as public)
// fails here.
func TestAuthz_EveryAPIRouteHasItsRule(t *testing.T) {
	a := newTestApp(t, nil)
	param := regexp.MustCompile(`:[a-z_]+`)
	seen := map[string]bool{}
	for _, r := range a.HTTP.GetRoutes(true) {
		if r.Method == "USE" || r.Method == http.MethodHead || r.Method == http.MethodOptions ||
			!strings.HasPrefix(r.Path, "/api/v1/") || strings.HasPrefix(r.Path, "/api/v1/admin") {
			continue
		}
		key := r.Method + " " + r.Path
		if seen[key] {
			continue
		}
		seen[key] = true
		path := param.ReplaceAllString(r.Path, "999999")
		t.Run(key, func(t *testing.T) {
			st := a.do(r.Method, path, "", nil, nil).status
			if publicAPI[key] && st == http.StatusUnauthorized {
				t.Errorf("public route answers 401")
			}
			if !publicAPI[key] && st != http.StatusUnauthorized {
				t.Errorf("anonymous -> %d, want 401 (or list the route as public)", st)
			}
		})
	}
	if len(seen) < 8 {
		t.Fatalf("only %d API routes found", len(seen))
	}
}

// TestAuthz_EveryConsoleFormHasItsRule posts to every console form route (POST under
// /admin) with a valid CSRF token of each caller: signed-out visitors are sent to sign
// in, customers get 403, staff get 403 on the admin-only sections and are let through
// elsewhere, admins everywhere. Ids no row has keep the allowed posts from changing
// anything.
func TestAuthz_EveryConsoleFormHasItsRule(t *testing.T) {
	a := newTestApp(t, nil)
	tokens := map[string]string{"anonymous": "", "customer": a.newUser(), "staff": a.demoToken("staff"), "admin": a.demoToken("admin")}
	param := regexp.MustCompile(`:[a-z_]+`)
	var routes []string
	seen := map[string]bool{}
	for _, r := range a.HTTP.GetRoutes(true) {
		if r.Method == http.MethodPost && (r.Path == "/admin" || strings.HasPrefix(r.Path, "/admin/")) && !seen[r.Path] {
			seen[r.Path] = true
			routes = append(routes, param.ReplaceAllString(r.Path, "999999"))
		}
	}
	sort.Strings(routes)
	if len(routes) < 5 {
		t.Fatalf("only %d console forms found: %v", len(routes), routes)
	}
	csrf := regexp.MustCompile(`name="_csrf" value="([^"]+)"`)
	for _, path := range routes {
		adminOnly := strings.HasPrefix(path, "/admin/reconcile") || strings.HasPrefix(path, "/admin/users") || strings.HasPrefix(path, "/admin/cinemas")
		for _, role := range []string{"anonymous", "customer", "staff", "admin"} {
			t.Run(role+" "+path, func(t *testing.T) {
				jar := []*http.Cookie{}
				if tok := tokens[role]; tok != "" {
					jar = append(jar, &http.Cookie{Name: "sf_session", Value: tok})
				}
				// a page of the site gives this caller's CSRF cookie and bound form token
				req, _ := http.NewRequest("GET", a.base+"/login", nil)
				if role != "anonymous" {
					req, _ = http.NewRequest("GET", a.base+"/", nil)
				}
				for _, c := range jar {
					req.AddCookie(c)
				}
				res, err := noRedirect.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(res.Body)
				res.Body.Close()
				m := csrf.FindSubmatch(body)
				if m == nil {
					t.Fatalf("no form token on the page for %s", role)
				}
				for _, c := range res.Cookies() {
					if c.Name == "sf_csrf" {
						jar = append(jar, c)
					}
				}
				post, _ := http.NewRequest("POST", a.base+path, strings.NewReader(url.Values{"_csrf": {string(m[1])}}.Encode()))
				post.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				for _, c := range jar {
					post.AddCookie(c)
				}
				pres, err := noRedirect.Do(post)
				if err != nil {
					t.Fatal(err)
				}
				pres.Body.Close()
				st, loc := pres.StatusCode, pres.Header.Get("Location")
				switch {
				case role == "anonymous":
					if st != http.StatusSeeOther || !strings.HasPrefix(loc, "/login") {
						t.Errorf("-> %d %q, want 303 to sign in", st, loc)
					}
				case role == "customer" || (role == "staff" && adminOnly):
					if st != http.StatusForbidden {
						t.Errorf("-> %d, want 403", st)
					}
				default:
					if st == http.StatusForbidden || st == http.StatusUnauthorized || st >= 500 || strings.HasPrefix(loc, "/login") {
						t.Errorf("-> %d %q, want let through", st, loc)
					}
				}
			})
		}
	}
}
