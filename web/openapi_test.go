package web

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"seatflow/handlers"
)

// routeKey is "METHOD /path" with every path parameter written {} (Fiber's :no and the
// document's {order_no} are the same route).
func routeKey(method, path string) string {
	return method + " " + regexp.MustCompile(`:[A-Za-z_]+|\{[A-Za-z_]+\}`).ReplaceAllString(path, "{}")
}

// TestOpenAPI_DocumentsEveryRoute compares the app's route table with the document:
// every route under /api/v1 (and /healthz, /readyz, /metrics) must be in
// handlers/openapi.json, and every operation there must be a route of the app.
func TestOpenAPI_DocumentsEveryRoute(t *testing.T) {
	app, err := New(testConfig(), &offsetClock{}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = app.Shutdown(ctx)
	})
	if _, err := openAPIRouter(); err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(handlers.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	inDoc := map[string]string{} // route key -> the document's path
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			inDoc[routeKey(method, path)] = path
		}
	}
	inApp := map[string]string{} // route key -> Fiber's path
	for _, r := range app.HTTP.GetRoutes(true) {
		if r.Method == "USE" || r.Method == http.MethodHead || r.Method == http.MethodOptions || !documented(r.Path) {
			continue
		}
		path := strings.TrimSuffix(r.Path, "/")
		inApp[routeKey(r.Method, path)] = path
	}
	var missing, stale []string
	for k, path := range inApp {
		if _, ok := inDoc[k]; !ok {
			method := strings.SplitN(k, " ", 2)[0]
			openPath := regexp.MustCompile(`:([A-Za-z_]+)`).ReplaceAllString(path, "{$1}")
			missing = append(missing, "  "+method+" "+path+`: add "`+openPath+`": {"`+strings.ToLower(method)+`": {...}} to "paths" (with its parameters, body and responses), and the endpoint to API.md`)
		}
	}
	for k, path := range inDoc {
		if _, ok := inApp[k]; !ok {
			stale = append(stale, "  "+strings.SplitN(k, " ", 2)[0]+" "+path+": the app has no such route; remove it from handlers/openapi.json (and API.md) or register it")
		}
	}
	sort.Strings(missing)
	sort.Strings(stale)
	if len(missing) > 0 {
		t.Errorf("routes missing from handlers/openapi.json:\n%s", strings.Join(missing, "\n"))
	}
	if len(stale) > 0 {
		t.Errorf("operations in handlers/openapi.json that are no route:\n%s", strings.Join(stale, "\n"))
	}
	if len(inApp) < 20 {
		t.Errorf("only %d routes found in the app's route table: %v", len(inApp), inApp)
	}
}

// The document is served as it is embedded, as JSON anyone may cache; and what the
// validating client checks against is that document.
func TestOpenAPI_Served(t *testing.T) {
	a := newTestApp(t, nil)
	r := a.do("GET", "/api/v1/openapi.json", "", nil, nil)
	if r.status != 200 || !bytes.Equal(r.body, handlers.OpenAPI) {
		t.Fatalf("GET /api/v1/openapi.json: %d, %d bytes (embedded %d)", r.status, len(r.body), len(handlers.OpenAPI))
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q", ct)
	}
	if cc := r.header.Get("Cache-Control"); !strings.Contains(cc, "public") {
		t.Errorf("Cache-Control %q, want public", cc)
	}
	var v struct {
		OpenAPI string `json:"openapi"`
	}
	if err := json.Unmarshal(r.body, &v); err != nil || !strings.HasPrefix(v.OpenAPI, "3.") {
		t.Errorf("not an OpenAPI 3 document: %q %v", v.OpenAPI, err)
	}
}

// The checker catches drift: an answer the document does not describe, a request the
// document refuses but the server accepted, and a route the document lacks.
func TestOpenAPI_CheckerCatchesDrift(t *testing.T) {
	ok := apiResp{status: 200, header: http.Header{"Content-Type": {"application/json"}}}
	withBody := func(r apiResp, body string) apiResp { r.body = []byte(body); return r }
	errHdr := http.Header{"Content-Type": {"application/json"}}
	cases := []struct {
		name, method, url string
		body              string
		res               apiResp
		want              string // "" for no problem
	}{
		{"a list as documented", "GET", "http://x/api/v1/shows?date=2030-01-01", "", withBody(ok, `{"shows":[]}`), ""},
		{"a field the document lacks", "GET", "http://x/api/v1/shows", "", withBody(ok, `{"shows":[],"extra":1}`), "does not match the document"},
		{"an id as a number", "GET", "http://x/api/v1/orders/ABC", "", withBody(ok, `{"order_no":"ABC","status":"pending","show_id":7,"total_minor":1,"currency":"CNY","created_at":"2030-01-01T00:00:00Z","expires_at":"2030-01-01T00:15:00Z","seats":[]}`), "does not match the document"},
		{"an error in the contract's shape", "GET", "http://x/api/v1/shows/1", "", apiResp{status: 404, header: errHdr, body: []byte(`{"error":{"code":"NOT_FOUND","message":"show not found"}}`)}, ""},
		{"an error of another shape", "GET", "http://x/api/v1/shows/1", "", apiResp{status: 503, header: errHdr, body: []byte(`{"message":"down"}`)}, "does not match the document"},
		{"an undocumented status", "GET", "http://x/api/v1/shows/1", "", withBody(apiResp{status: 201, header: ok.header}, `{}`), "does not match the document"},
		{"a bad date accepted", "GET", "http://x/api/v1/shows?date=tomorrow", "", withBody(ok, `{"shows":[]}`), "refuses this request"},
		{"a bad date refused", "GET", "http://x/api/v1/shows?date=tomorrow", "", apiResp{status: 400, header: errHdr, body: []byte(`{"error":{"code":"INVALID_REQUEST","message":"date must be YYYY-MM-DD"}}`)}, ""},
		{"an undocumented route answering", "GET", "http://x/api/v1/nowhere", "", withBody(ok, `{}`), "is not in handlers/openapi.json"},
		{"an undocumented route answering 404", "GET", "http://x/api/v1/nowhere", "", apiResp{status: 404, header: errHdr, body: []byte(`{"error":{"code":"NOT_FOUND","message":"x"}}`)}, ""},
		{"an undocumented route's 404 of another shape", "GET", "http://x/api/v1/nowhere", "", apiResp{status: 404, header: errHdr, body: []byte(`not found`)}, "without the contract's error shape"},
		{"an admin address without a route is guarded", "GET", "http://x/api/v1/admin/nowhere", "", apiResp{status: 403, header: errHdr, body: []byte(`{"error":{"code":"FORBIDDEN","message":"x"}}`)}, ""},
		{"pages are not checked", "GET", "http://x/shows", "", withBody(apiResp{status: 200, header: http.Header{"Content-Type": {"text/html"}}}, "<html>"), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := checkOpenAPI(c.method, c.url, http.Header{}, []byte(c.body), c.res)
			if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
				t.Fatalf("checkOpenAPI = %q, want %q", got, c.want)
			}
		})
	}
}

// A day with no shows, however far in the past, is an empty list; a date that is no
// date is 400 INVALID_REQUEST.
func TestShowsOfADayWithNoShows(t *testing.T) {
	a := newTestApp(t, nil)
	for _, c := range []struct {
		date   string
		status int
		code   string
	}{{"0001-01-01", 200, ""}, {"1999-12-31", 200, ""}, {"9999-12-31", 200, ""}, {"2030-02-30", 400, "INVALID_REQUEST"}, {"today", 400, "INVALID_REQUEST"}} {
		t.Run(c.date, func(t *testing.T) {
			r := a.do("GET", "/api/v1/shows?date="+c.date, "", nil, nil)
			if r.status != c.status || r.code() != c.code {
				t.Fatalf("%d %s, want %d %s", r.status, r.body, c.status, c.code)
			}
			if c.status == 200 && string(r.body) != `{"shows":[]}` {
				t.Fatalf("body %s, want no shows", r.body)
			}
		})
	}
}
