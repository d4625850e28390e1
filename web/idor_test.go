package web

import (
	"net/http"
	"testing"
)

// TestOrders_OtherPeoplesOrdersAreNotFound: knowing someone else's order number gets a
// signed-in buyer nothing: reading, paying or cancelling it through the API or the
// pages answers 404 (as for a number that does not exist), and the order is unchanged.
func TestOrders_OtherPeoplesOrdersAreNotFound(t *testing.T) {
	a := newTestApp(t, nil)
	owner, other := a.newUser(), a.newUser()
	show, seats := a.onSaleShow(1)
	r := a.do("POST", "/api/v1/shows/"+show+"/orders", owner, map[string]any{"seat_ids": seats}, nil)
	if r.status != 201 {
		t.Fatalf("order: %d %s", r.status, r.body)
	}
	no := r.json(t)["order_no"].(string)
	for _, c := range []struct{ method, path string }{
		{"GET", "/api/v1/orders/" + no},
		{"POST", "/api/v1/orders/" + no + "/pay"},
		{"POST", "/api/v1/orders/" + no + "/cancel"},
	} {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			if r := a.do(c.method, c.path, other, map[string]any{}, nil); r.status != http.StatusNotFound || r.code() != "NOT_FOUND" {
				t.Errorf("%d %s, want 404 NOT_FOUND", r.status, r.body)
			}
		})
	}
	if st := a.page("/orders/"+no, other); st != http.StatusNotFound {
		t.Errorf("order page as another buyer: %d, want 404", st)
	}
	if got := a.do("GET", "/api/v1/orders/"+no, owner, nil, nil).json(t)["status"]; got != "pending" {
		t.Errorf("the owner's order is %v after the attempts, want pending", got)
	}
}
