package web

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// get fetches url and returns its status and body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestOps_SeparateAddress: with SEATFLOW_OPS_ADDR set, /metrics, /readyz and pprof are
// served there and not on the public address (which keeps /healthz); without it, the
// public address serves /metrics and /readyz as before but never pprof.
func TestOps_SeparateAddress(t *testing.T) {
	ops := freePort(t)
	a := newTestApp(t, func(c *Config) { c.OpsAddr = ops })
	if a.Ops == nil {
		t.Fatal("no operations app with SEATFLOW_OPS_ADDR set")
	}
	ln, err := net.Listen("tcp", ops)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = a.Ops.Listener(ln) }()
	opsBase := "http://" + ops
	for path, want := range map[string]int{"/metrics": 200, "/readyz": 200, "/healthz": 200, "/debug/pprof/": 200} {
		if st, _ := get(t, opsBase+path); st != want {
			t.Errorf("ops %s -> %d, want %d", path, st, want)
		}
	}
	for path, want := range map[string]int{"/metrics": 404, "/readyz": 404, "/debug/pprof/": 404, "/healthz": 200} {
		if st, _ := get(t, a.base+path); st != want {
			t.Errorf("public %s -> %d, want %d", path, st, want)
		}
	}

	b := newTestApp(t, nil)
	if b.Ops != nil {
		t.Error("an operations app without SEATFLOW_OPS_ADDR")
	}
	for path, want := range map[string]int{"/metrics": 200, "/readyz": 200, "/debug/pprof/": 404} {
		if st, _ := get(t, b.base+path); st != want {
			t.Errorf("default %s -> %d, want %d", path, st, want)
		}
	}
}

// TestOps_ReadinessTellsNoInternals: /readyz with Redis down answers 503 naming the
// store, without the driver's error text (addresses, dial errors).
func TestOps_ReadinessTellsNoInternals(t *testing.T) {
	cfg := testConfig()
	cfg.RedisAddr = "127.0.0.1:1"
	_, downBase := otherInstance(t, cfg, nil)
	st, body := get(t, downBase+"/readyz")
	if st != http.StatusServiceUnavailable || body != "redis: not answering" {
		t.Errorf("/readyz -> %d %q, want 503 \"redis: not answering\"", st, body)
	}
	for _, leak := range []string{"dial", "127.0.0.1", "refused", "tcp"} {
		if strings.Contains(body, leak) {
			t.Errorf("/readyz tells %q: %q", leak, body)
		}
	}
}
