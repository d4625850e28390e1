package staff_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/internal/testenv"
	"seatflow/services/staff"
)

// TestStaffOrderSearch: filters by order number, show, status and email (exact, any
// case), newest first, with seats and buyer; bad filters are INVALID_REQUEST; a pending
// order past its deadline is shown expired.
func TestStaffOrderSearch(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	so := staffOrders(e)
	u1, u2 := e.User(1), e.User(2)
	var email1 string
	if err := e.DB.Get(&email1, "SELECT email FROM users WHERE id = ?", u1); err != nil {
		t.Fatal(err)
	}
	a, err := e.Create(u1, e.SeatIDs("A1", "A2")...)
	if err != nil {
		t.Fatal(err)
	}
	e.Clock.Advance(time.Second)
	b, err := e.Create(u2, e.SeatIDs("B1")...)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.PayOrder(b); err != nil {
		t.Fatal(err)
	}
	e.Clock.Advance(time.Second)
	c, err := e.Create(u1, e.SeatIDs("C1")...)
	if err != nil {
		t.Fatal(err)
	}
	nos := func(f staff.OrderSearch) string {
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
		f    staff.OrderSearch
		want string
	}{
		"all newest first": {staff.OrderSearch{}, c.OrderNo + "," + b.OrderNo + "," + a.OrderNo},
		"by show":          {staff.OrderSearch{ShowID: e.Show.ID}, c.OrderNo + "," + b.OrderNo + "," + a.OrderNo},
		"other show":       {staff.OrderSearch{ShowID: e.Show.ID + 1000}, ""},
		"by status":        {staff.OrderSearch{Status: services.OrderPaid}, b.OrderNo},
		"by email any case": {staff.OrderSearch{Email: " " + strings.ToUpper(email1) + " "},
			c.OrderNo + "," + a.OrderNo},
		"by email in full-width letters": {staff.OrderSearch{Email: testenv.FullWidth(email1)}, c.OrderNo + "," + a.OrderNo},
		"email prefix is no match":       {staff.OrderSearch{Email: email1[:len(email1)-2]}, ""},
		"by order number":                {staff.OrderSearch{OrderNo: a.OrderNo}, a.OrderNo},
		"limit":                          {staff.OrderSearch{Limit: 1}, c.OrderNo},
	} {
		if got := nos(tc.f); got != tc.want {
			t.Errorf("%s: %q, want %q", name, got, tc.want)
		}
	}
	got, err := so.Search(ctx, staff.OrderSearch{OrderNo: a.OrderNo})
	if err != nil || len(got) != 1 {
		t.Fatal(err)
	}
	if got[0].UserID != u1 || got[0].UserEmail != email1 || len(got[0].Seats) != 2 || got[0].Seats[0].Label != "A1" {
		t.Errorf("order as staff see it: %+v", got[0])
	}
	for _, f := range []staff.OrderSearch{{Status: "lost"}, {Limit: staff.MaxOrderSearchLimit + 1}, {Limit: -1}, {ShowID: -3}, {Email: "a\u200b@x.test"}} {
		if _, err := so.Search(ctx, f); services.ErrorCode(err) != services.CodeInvalidRequest {
			t.Errorf("search %+v: %v, want INVALID_REQUEST", f, err)
		}
	}
	e.Clock.Advance(time.Hour)
	if got := nos(staff.OrderSearch{Status: services.OrderPending}); got != "" {
		t.Errorf("pending orders past their deadline: %q, want none", got)
	}
	if got := nos(staff.OrderSearch{Status: services.OrderExpired}); got != c.OrderNo+","+a.OrderNo {
		t.Errorf("expired: %q", got)
	}
	e.CheckInvariants()
}
