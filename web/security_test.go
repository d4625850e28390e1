package web

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSecurityHeaders_OnPagesAndAPI: every answer carries the content security policy
// (no inline script), frame denial, nosniff and the referrer policy; HSTS only when the
// site is configured as served over HTTPS.
func TestSecurityHeaders_OnPagesAndAPI(t *testing.T) {
	for _, secure := range []bool{false, true} {
		t.Run(map[bool]string{false: "http", true: "https"}[secure], func(t *testing.T) {
			a := newTestApp(t, func(c *Config) { c.SecureCookies = secure })
			for _, path := range []string{"/", "/login", "/api/v1/shows", "/no-such-page", "/static/css/app.css"} {
				res, err := http.Get(a.base + path)
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				h := res.Header
				csp := h.Get("Content-Security-Policy")
				for _, want := range []string{"script-src 'self'", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'self'", "form-action 'self'"} {
					if !strings.Contains(csp, want) {
						t.Errorf("%s: CSP %q lacks %q", path, csp, want)
					}
				}
				if strings.Contains(csp, "unsafe-eval") || strings.Contains(strings.SplitN(csp+";", "script-src", 2)[1], "unsafe-inline;") {
					t.Errorf("%s: CSP %q allows inline or eval'd script", path, csp)
				}
				for name, want := range map[string]string{"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin"} {
					if got := h.Get(name); got != want {
						t.Errorf("%s: %s = %q, want %q", path, name, got, want)
					}
				}
				if hsts := h.Get("Strict-Transport-Security"); (hsts != "") != secure {
					t.Errorf("%s: Strict-Transport-Security = %q with secure=%v", path, hsts, secure)
				}
			}
		})
	}
}

// TestPages_NoInlineScript: the pages satisfy the policy: no inline <script> body, no
// on* handler attributes, no javascript: links, and htmx is told not to inject styles
// or evaluate code.
func TestPages_NoInlineScript(t *testing.T) {
	a := newTestApp(t, nil)
	show, _ := a.onSaleShow(1)
	tok := a.demoToken("admin")
	for _, path := range []string{"/", "/shows/" + show, "/login", "/register", "/orders", "/admin/reconcile"} {
		body := a.pageBody(path, tok)
		low := strings.ToLower(body)
		for i := 0; ; {
			j := strings.Index(low[i:], "<script")
			if j < 0 {
				break
			}
			tag := low[i+j : i+j+strings.Index(low[i+j:], ">")+1]
			if !strings.Contains(tag, " src=") || !strings.HasPrefix(low[i+j+len(tag):], "</script>") {
				t.Errorf("%s: inline script %q", path, tag)
			}
			i += j + len(tag)
		}
		for _, bad := range []string{" onclick=", " onload=", " onsubmit=", " onchange=", "javascript:", "hx-on"} {
			if strings.Contains(low, bad) {
				t.Errorf("%s: has %q, which the policy forbids", path, bad)
			}
		}
		if !strings.Contains(body, `name="htmx-config"`) {
			t.Errorf("%s: no htmx-config meta", path)
		}
	}
}

// TestBodyLimit_RefusedBeforeRead: a request announcing a body over 64 KiB is answered
// 413 in the contract's shape at once, without the server waiting for the body.
func TestBodyLimit_RefusedBeforeRead(t *testing.T) {
	a := newTestApp(t, nil)
	conn, err := net.Dial("tcp", strings.TrimPrefix(a.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// 1 MiB announced, a few bytes sent: a server that reads before it checks would wait
	_, _ = conn.Write([]byte("POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n{\"a\":"))
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer before the body arrived: %v", err)
	}
	defer res.Body.Close()
	var body struct {
		Error struct{ Code, Message string }
	}
	_ = json.NewDecoder(res.Body).Decode(&body)
	if res.StatusCode != http.StatusRequestEntityTooLarge || body.Error.Code != "PAYLOAD_TOO_LARGE" || !strings.Contains(body.Error.Message, "64 KiB") {
		t.Fatalf("got %d %+v, want 413 PAYLOAD_TOO_LARGE in our words", res.StatusCode, body)
	}
}

// pageBody GETs a page with the session cookie of token ("" for none) and returns its
// HTML.
func (a *testApp) pageBody(path, token string) string {
	a.t.Helper()
	req, err := http.NewRequest(http.MethodGet, a.base+path, nil)
	if err != nil {
		a.t.Fatal(err)
	}
	if token != "" {
		req.AddCookie(&http.Cookie{Name: "sf_session", Value: token})
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		a.t.Fatal(err)
	}
	return string(b)
}

// TestBodyLimit_ClientsReadThe413: a client still sending a body far over the limit
// when the server has refused it can finish sending and then read the 413 answer: the
// server refuses before reading the body, then lingers reading what arrives instead of
// closing with unread data, which resets the connection under the client's writes (an
// HTTP client then reports the reset, not the answer).
func TestBodyLimit_ClientsReadThe413(t *testing.T) {
	a := newTestApp(t, nil)
	for i := 0; i < 5; i++ {
		conn, err := net.Dial("tcp", strings.TrimPrefix(a.base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		const size = 4 << 20
		_, _ = conn.Write([]byte("POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
			strconv.Itoa(size) + "\r\n\r\n"))
		wrote := make(chan error, 1)
		go func() { // the whole body, as an HTTP client uploading it does
			chunk := bytes.Repeat([]byte("1"), 64<<10)
			for sent := 0; sent < size; sent += len(chunk) {
				if _, err := conn.Write(chunk); err != nil {
					wrote <- err
					return
				}
			}
			wrote <- nil
		}()
		select {
		case err := <-wrote:
			if err != nil {
				conn.Close()
				t.Fatalf("attempt %d: the connection was reset while the client sent its body: %v", i, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("attempt %d: the server stopped reading", i)
		}
		_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		res, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			conn.Close()
			t.Fatalf("attempt %d: the answer was lost: %v", i, err)
		}
		res.Body.Close()
		conn.Close()
		if res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("attempt %d: %d, want 413", i, res.StatusCode)
		}
	}
}

// TestServerErrors_CarryTheDefences: answers the server gives before any route runs (a
// chunked body over the limit, headers over 16 KiB) carry the security headers too,
// and under /api/ they are JSON in the contract's shape; headers up to 16 KiB are
// served.
func TestServerErrors_CarryTheDefences(t *testing.T) {
	a := newTestApp(t, nil)
	big := bytes.Repeat([]byte("x"), 80<<10)
	cases := []struct {
		name   string
		req    func() *http.Request
		status int
		json   bool
	}{
		{"chunked body over the limit (API)", func() *http.Request {
			r, _ := http.NewRequest("POST", a.base+"/api/v1/auth/login", io.NopCloser(bytes.NewReader(big)))
			r.Header.Set("Content-Type", "application/json")
			r.ContentLength = -1 // chunked
			return r
		}, http.StatusRequestEntityTooLarge, true},
		{"body over the limit (page)", func() *http.Request {
			r, _ := http.NewRequest("POST", a.base+"/login", bytes.NewReader(big))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return r
		}, http.StatusRequestEntityTooLarge, false},
		{"12 KiB of headers are served (a large cookie, an auth proxy)", func() *http.Request {
			r, _ := http.NewRequest("GET", a.base+"/api/v1/shows", nil)
			r.Header.Set("X-Big", strings.Repeat("k", 12<<10))
			return r
		}, http.StatusOK, false},
		{"headers over 16 KiB (API)", func() *http.Request {
			r, _ := http.NewRequest("GET", a.base+"/api/v1/shows", nil)
			r.Header.Set("X-Big", strings.Repeat("k", 20<<10))
			return r
		}, http.StatusRequestHeaderFieldsTooLarge, true},
		{"headers over 16 KiB (page)", func() *http.Request {
			r, _ := http.NewRequest("GET", a.base+"/login", nil)
			r.Header.Set("X-Big", strings.Repeat("k", 20<<10))
			return r
		}, http.StatusRequestHeaderFieldsTooLarge, false},
		{"headers over the read buffer: the address is unknown", func() *http.Request {
			r, _ := http.NewRequest("GET", a.base+"/api/v1/shows", nil)
			r.Header.Set("X-Big", strings.Repeat("k", 40<<10))
			return r
		}, http.StatusRequestHeaderFieldsTooLarge, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := http.DefaultClient.Do(tc.req())
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != tc.status {
				t.Fatalf("%d %s, want %d", res.StatusCode, body, tc.status)
			}
			for _, h := range []string{"Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options", "Referrer-Policy"} {
				if res.Header.Get(h) == "" {
					t.Errorf("no %s on the answer", h)
				}
			}
			if tc.json && !strings.Contains(string(body), `"code":"PAYLOAD_TOO_LARGE"`) {
				t.Errorf("not the contract's JSON: %s", body)
			}
			if !tc.json && tc.status >= 400 && !strings.Contains(string(body), "<html") {
				t.Errorf("not an error page: %.200s", body)
			}
		})
	}
}
