package web

import (
	"testing"
)

// TestAPI_RedisDownIs503AndWritesNothing: with Redis unreachable an order is refused
// with 503 UNAVAILABLE (never "allowed" by a rate limiter that cannot count), /readyz
// says not ready, and MySQL gets no order.
func TestAPI_RedisDownIs503AndWritesNothing(t *testing.T) {
	a := newTestApp(t, nil)
	tok := a.newUser()
	show, seats := a.onSaleShow(1)

	cfg := a.Cfg
	cfg.RedisAddr = "127.0.0.1:1" // nothing listens there
	_, downBase := otherInstance(t, cfg, a.clock)
	base := downBase
	var before int
	a.DB.Get(&before, "SELECT COUNT(*) FROM orders")
	r := a.doAt(base, "POST", "/api/v1/shows/"+show+"/orders", tok, map[string]any{"seat_ids": seats})
	if r.status != 503 || r.code() != "UNAVAILABLE" {
		t.Errorf("order with Redis down: %d %s, want 503 UNAVAILABLE", r.status, r.body)
	}
	if r := a.doAt(base, "GET", "/readyz", "", nil); r.status != 503 {
		t.Errorf("/readyz with Redis down: %d", r.status)
	}
	if r := a.doAt(base, "GET", "/healthz", "", nil); r.status != 200 {
		t.Errorf("/healthz with Redis down: %d (the process runs)", r.status)
	}
	var after int
	a.DB.Get(&after, "SELECT COUNT(*) FROM orders")
	if after != before {
		t.Errorf("%d orders written while Redis was down", after-before)
	}
	if st := a.seatState(show, seats[0]); st != "free" {
		t.Errorf("seat is %s after the refused order", st)
	}
}
