package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"seatflow/handlers"
)

// The API tests send every request through send, which checks the request and the
// answer against the OpenAPI document the app serves (handlers/openapi.json), so that
// the document cannot drift from the code:
//   - an answer (2xx or an error) whose status, content type or body the document does
//     not describe fails the test;
//   - a request the document calls invalid must be refused (4xx): a 2xx means the
//     document is stricter than the server;
//   - an address under /api/ that the document does not know must be a 404 (or the
//     401/403 of the admin group's role check) in the contract's error shape.

var (
	specOnce   sync.Once
	specRouter routers.Router
	specErr    error
)

// openAPIRouter loads and validates the embedded document once.
func openAPIRouter() (routers.Router, error) {
	specOnce.Do(func() {
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(handlers.OpenAPI)
		if err != nil {
			specErr = fmt.Errorf("handlers/openapi.json does not load: %w", err)
			return
		}
		if err := doc.Validate(loader.Context); err != nil {
			specErr = fmt.Errorf("handlers/openapi.json is not a valid OpenAPI 3 document: %w", err)
			return
		}
		specRouter, specErr = gorillamux.NewRouter(doc)
	})
	return specRouter, specErr
}

// documented reports whether path is in the part of the app the document covers.
func documented(path string) bool {
	return strings.HasPrefix(path, "/api/") || path == "/healthz" || path == "/readyz" || path == "/metrics"
}

// presentCredentials checks that a request carries the credential a security scheme
// names (its presence only: whether the server accepts it is the server's business).
func presentCredentials(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	r := in.RequestValidationInput.Request
	switch s := in.SecurityScheme; {
	case s.Type == "http" && strings.EqualFold(s.Scheme, "bearer"):
		if h := r.Header.Get("Authorization"); len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
			return nil
		}
		return errors.New("no Authorization: Bearer header")
	case s.Type == "apiKey" && s.In == "cookie":
		if _, err := r.Cookie(s.Name); err == nil {
			return nil
		}
		return fmt.Errorf("no %s cookie", s.Name)
	}
	return fmt.Errorf("unknown security scheme %q", in.SecuritySchemeName)
}

var checkOptions = &openapi3filter.Options{AuthenticationFunc: presentCredentials, MultiError: true, IncludeResponseStatus: true}

// An event stream is checked as text (its events' JSON is the same as the matching GET
// answer, which is checked there).
func init() { openapi3filter.RegisterBodyDecoder("text/event-stream", openapi3filter.FileBodyDecoder) }

// checkOpenAPI checks one request (its body given as bytes) and its answer against the
// document; it returns a message naming the route and every problem, or "" when both
// agree with it.
func checkOpenAPI(method, rawURL string, header http.Header, body []byte, res apiResp) string {
	u, err := url.Parse(rawURL)
	if err != nil || !documented(u.Path) {
		return ""
	}
	router, err := openAPIRouter()
	if err != nil {
		return err.Error()
	}
	req, _ := http.NewRequest(method, rawURL, bytes.NewReader(body))
	req.Header = header.Clone()
	route, params, err := router.FindRoute(req)
	if err != nil {
		// an address with no route is 404, or 401/403 under /api/v1/admin/ (the role
		// check guards the whole group), in the contract's error shape
		guarded := strings.HasPrefix(u.Path, "/api/v1/admin/") && (res.status == http.StatusUnauthorized || res.status == http.StatusForbidden)
		if res.status != http.StatusNotFound && !guarded {
			return fmt.Sprintf("OpenAPI: %s %s is not in handlers/openapi.json (%v) but the server answered %d: document it", method, u.Path, err, res.status)
		}
		var e struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		if json.Unmarshal(res.body, &e) != nil || e.Error.Code == "" || e.Error.Message == "" {
			return fmt.Sprintf("OpenAPI: %s %s (no route) answered %d without the contract's error shape: %.300s", method, u.Path, res.status, res.body)
		}
		return ""
	}
	where := fmt.Sprintf("%s %s (route %s %s)", method, u.RequestURI(), method, route.Path)
	ctx := context.Background()
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: checkOptions}
	reqErr := openapi3filter.ValidateRequest(ctx, in)
	var problems []string
	if reqErr != nil && res.status < 300 {
		problems = append(problems, fmt.Sprintf("the document refuses this request but the server answered %d: %s", res.status, withoutDumps(reqErr)))
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.status, Header: res.header, Options: checkOptions}
	if err := openapi3filter.ValidateResponse(ctx, out.SetBodyBytes(res.body)); err != nil {
		problems = append(problems, fmt.Sprintf("the answer %d does not match the document: %s\nbody: %.600s", res.status, withoutDumps(err), res.body))
	}
	if len(problems) == 0 {
		return ""
	}
	return "OpenAPI: " + where + ": " + strings.Join(problems, "; ")
}

// withoutDumps is err's text without the schema and value dumps kin-openapi appends
// (indented blocks under "Schema:" and "Value:"), which bury the reason.
func withoutDumps(err error) string {
	var out []string
	skip := -1 // indentation of the dump being skipped, -1 when none
	for _, l := range strings.Split(err.Error(), "\n") {
		indent := len(l) - len(strings.TrimLeft(l, " \t"))
		if skip >= 0 && (indent > skip || strings.TrimSpace(l) == "") {
			continue
		}
		skip = -1
		if t := strings.TrimSpace(l); t == "Schema:" || t == "Value:" {
			skip = indent
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
