package web

import (
	"encoding/json"
	"testing"
)

// An address without a route under /api/ answers 404 in the contract's error shape.
func TestAPI_UnknownEndpointIs404InTheContractShape(t *testing.T) {
	a := newTestApp(t, nil)
	for _, p := range []string{"/api/v1/nothing", "/api/v1/shows/1/nothing", "/api/v2/shows"} {
		r := a.do("GET", p, "", nil, nil)
		var e struct {
			Error struct{ Code, Message string }
		}
		if r.status != 404 || json.Unmarshal(r.body, &e) != nil || e.Error.Code != "NOT_FOUND" || e.Error.Message == "" {
			t.Errorf("GET %s -> %d %s", p, r.status, r.body)
		}
	}
}
