package services

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestStaffOrderSearch: filters by order number, show, status and email (exact, any
// case), newest first, with seats and buyer; bad filters are INVALID_REQUEST; a pending
// order past its deadline is shown expired.
func TestStaffOrderSearch(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	so := e.staffOrders()
	u1, u2 := e.user(1), e.user(2)
	var email1 string
	if err := e.db.Get(&email1, "SELECT email FROM users WHERE id = ?", u1); err != nil {
		t.Fatal(err)
	}
	a, err := e.create(u1, e.seatIDs("A1", "A2")...)
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Second)
	b, err := e.create(u2, e.seatIDs("B1")...)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.payOrder(b); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(time.Second)
	c, err := e.create(u1, e.seatIDs("C1")...)
	if err != nil {
		t.Fatal(err)
	}
	nos := func(f OrderSearch) string {
		t.Helper()
		got, err := so.Search(ctx, f)
		if err != nil {
			t.Fatalf("search %+v: %v", f, err)
		}
		var out []string
		for _, o := range got {
			out = append(out, o.OrderNo)
		}
		return strings.Join(out, ",")
	}
	for name, tc := range map[string]struct {
		f    OrderSearch
		want string
	}{
		"all newest first": {OrderSearch{}, c.OrderNo + "," + b.OrderNo + "," + a.OrderNo},
		"by show":          {OrderSearch{ShowID: e.show.ID}, c.OrderNo + "," + b.OrderNo + "," + a.OrderNo},
		"other show":       {OrderSearch{ShowID: e.show.ID + 1000}, ""},
		"by status":        {OrderSearch{Status: OrderPaid}, b.OrderNo},
		"by email any case": {OrderSearch{Email: " " + strings.ToUpper(email1) + " "},
			c.OrderNo + "," + a.OrderNo},
		"by email in full-width letters": {OrderSearch{Email: fullWidth(email1)}, c.OrderNo + "," + a.OrderNo},
		"email prefix is no match":       {OrderSearch{Email: email1[:len(email1)-2]}, ""},
		"by order number":                {OrderSearch{OrderNo: a.OrderNo}, a.OrderNo},
		"limit":                          {OrderSearch{Limit: 1}, c.OrderNo},
	} {
		if got := nos(tc.f); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
	}
	got, err := so.Search(ctx, OrderSearch{OrderNo: a.OrderNo})
	if err != nil || len(got) != 1 {
		t.Fatal(err)
	}
	if got[0].UserID != u1 || got[0].UserEmail != email1 || len(got[0].Seats) != 2 || got[0].Seats[0].Label != "A1" {
		t.Errorf("order as staff see it: %+v", got[0])
	}
	for _, f := range []OrderSearch{{Status: "lost"}, {Limit: 201}, {Limit: -1}, {ShowID: -3}, {Email: "a\u200b@x.test"}} {
		if _, err := so.Search(ctx, f); ErrorCode(err) != CodeInvalidRequest {
			t.Errorf("search %+v: %v, want INVALID_REQUEST", f, err)
		}
	}
	e.clock.Advance(time.Hour)
	if got := nos(OrderSearch{Status: OrderPending}); got != "" {
		t.Errorf("pending orders past their deadline: %q, want none", got)
	}
	if got := nos(OrderSearch{Status: OrderExpired}); got != c.OrderNo+","+a.OrderNo {
		t.Errorf("expired: %q", got)
	}
	e.checkInvariants()
}
