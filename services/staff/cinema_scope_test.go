package staff_test

import (
	"context"
	"strconv"
	"testing"

	"seatflow/services"
	"seatflow/services/audit"
	"seatflow/services/internal/testenv"
	"seatflow/services/staff"
	"seatflow/services/store"
)

// TestCinemaScope_ListsAreFiltered: with a scope in the context (a staff member limited
// to cinemas), the order search, the dashboard and the audit log hold only the scope's
// cinemas (the audit log also entries of no one cinema); without one, or with the
// cinema of the test show, everything; an audit filter on a cinema outside the scope is
// FORBIDDEN.
func TestCinemaScope_ListsAreFiltered(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	bg := context.Background()
	home := e.Hall.CinemaID
	other, err := store.InsertCinema(bg, e.DB, "Riverside", "Asia/Shanghai", "CNY", e.Clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	o, err := e.Create(e.User(1), e.SeatIDs("A1")...)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.PayOrder(o); err != nil {
		t.Fatal(err)
	}
	pending, err := e.Create(e.User(2), e.SeatIDs("B1")...)
	if err != nil {
		t.Fatal(err)
	}
	log := audit.NewAudit(e.DB, e.Clock)
	showID := strconv.FormatInt(e.Show.ID, 10)
	for _, r := range []struct{ entity, id string }{{"show", showID}, {"movie", "1"}, {"order", pending.OrderNo}, {"cinema", strconv.FormatInt(other, 10)}} {
		if err := log.Record(bg, e.DB, e.User(1), r.entity+".update", r.entity, r.id, nil, map[string]int{"x": 1}); err != nil {
			t.Fatal(err)
		}
	}
	so := staffOrders(e)
	dash := staff.NewDashboard(e.DB, e.Clock, nil)
	for name, tc := range map[string]struct {
		ctx             context.Context
		orders, pending int
		revenueOrders   int
		audit           []string // entities listed, newest first
	}{
		"no scope: every cinema": {bg, 2, 1, 1, []string{"cinema", "order", "movie", "show"}},
		"the show's cinema":      {services.WithCinemaScope(bg, services.CinemaScope{IDs: []int64{home}}), 2, 1, 1, []string{"order", "movie", "show"}},
		"both cinemas":           {services.WithCinemaScope(bg, services.CinemaScope{IDs: []int64{home, other}}), 2, 1, 1, []string{"cinema", "order", "movie", "show"}},
		"another cinema only":    {services.WithCinemaScope(bg, services.CinemaScope{IDs: []int64{other}}), 0, 0, 0, []string{"cinema", "movie"}},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := so.Search(tc.ctx, staff.OrderSearch{})
			if err != nil || len(got) != tc.orders {
				t.Errorf("order search: %d orders, %v; want %d", len(got), err, tc.orders)
			}
			snap, err := dash.Snapshot(tc.ctx)
			if err != nil {
				t.Fatal(err)
			}
			if snap.Pending.Count != tc.pending || len(snap.Pending.Oldest) != tc.pending {
				t.Errorf("pending %d (%d listed), want %d", snap.Pending.Count, len(snap.Pending.Oldest), tc.pending)
			}
			paid := 0
			for _, l := range snap.RevenueToday.Totals {
				paid += l.Orders
			}
			if paid != tc.revenueOrders {
				t.Errorf("revenue today: %d orders, want %d", paid, tc.revenueOrders)
			}
			created := 0
			for _, m := range snap.Minutes {
				created += m.Created
			}
			if created != tc.orders {
				t.Errorf("orders per minute: %d created, want %d", created, tc.orders)
			}
			entries, err := log.List(tc.ctx, audit.AuditFilter{Action: "", Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			var ents []string
			for _, en := range entries {
				if en.Action == en.Entity+".update" {
					ents = append(ents, en.Entity)
				}
			}
			if len(ents) != len(tc.audit) {
				t.Fatalf("audit entities %v, want %v", ents, tc.audit)
			}
			for i := range ents {
				if ents[i] != tc.audit[i] {
					t.Errorf("audit entities %v, want %v", ents, tc.audit)
				}
			}
		})
	}
	t.Run("audit entries name their cinema and filter by it", func(t *testing.T) {
		got, err := log.List(bg, audit.AuditFilter{CinemaID: home, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, en := range got {
			if en.CinemaID == nil || *en.CinemaID != home {
				t.Errorf("%s %s names cinema %v, want %d", en.Entity, en.EntityID, en.CinemaID, home)
			}
			seen[en.Entity+" "+en.EntityID] = true
		}
		if !seen["show "+showID] || !seen["order "+pending.OrderNo] || seen["movie 1"] {
			t.Errorf("entries of cinema %d: %v", home, seen)
		}
		limited := services.WithCinemaScope(bg, services.CinemaScope{IDs: []int64{other}})
		if _, err := log.List(limited, audit.AuditFilter{CinemaID: home}); services.ErrorCode(err) != services.CodeForbidden {
			t.Errorf("another cinema's entries for limited staff: %v, want FORBIDDEN", err)
		}
	})
	t.Run("order search by another cinema's show is forbidden", func(t *testing.T) {
		limited := services.WithCinemaScope(bg, services.CinemaScope{IDs: []int64{other}})
		if got, err := so.Search(limited, staff.OrderSearch{ShowID: e.Show.ID}); services.ErrorCode(err) != services.CodeForbidden {
			t.Errorf("search by show %d for staff of cinema %d: %d orders, %v; want FORBIDDEN", e.Show.ID, other, len(got), err)
		}
		if got, err := so.Search(limited, staff.OrderSearch{ShowID: 99999999}); err != nil || len(got) != 0 {
			t.Errorf("search by an unknown show: %d orders, %v; want none", len(got), err)
		}
		own := services.WithCinemaScope(bg, services.CinemaScope{IDs: []int64{home}})
		if got, err := so.Search(own, staff.OrderSearch{ShowID: e.Show.ID}); err != nil || len(got) != 2 {
			t.Errorf("search by own show: %d orders, %v; want 2", len(got), err)
		}
	})
}

// TestCinemaScopes_CinemaOf: a hall, show and order resolve to their cinema, a ticket
// reference to its order's; unknown ones (and malformed keys) are not found; staff
// with rows in staff_cinemas are limited to them, staff without rows and admins are not.
func TestCinemaScopes_CinemaOf(t *testing.T) {
	d := newDoorEnv(t)
	bg := context.Background()
	home := d.Hall.CinemaID
	o := d.paid("A1")
	s := staff.NewCinemaScopes(d.DB, d.door)
	for name, tc := range map[string]struct {
		kind, key string
		found     bool
	}{
		"hall":            {staff.ScopeHall, strconv.FormatInt(d.Hall.ID, 10), true},
		"show":            {staff.ScopeShow, strconv.FormatInt(d.Show.ID, 10), true},
		"order":           {staff.ScopeOrder, o.OrderNo, true},
		"ticket":          {staff.ScopeTicket, d.tickets.Ref(o), true},
		"unknown hall":    {staff.ScopeHall, "999999", false},
		"malformed show":  {staff.ScopeShow, "new", false},
		"show, zero-led":  {staff.ScopeShow, "0" + strconv.FormatInt(d.Show.ID, 10), false},
		"hall, signed":    {staff.ScopeHall, "+" + strconv.FormatInt(d.Hall.ID, 10), false},
		"unknown order":   {staff.ScopeOrder, "NOSUCHORDER", false},
		"forged ticket":   {staff.ScopeTicket, "SF1.x.aaaaaaaaaaaaaaaaaaaaaa", false},
		"unresolved kind": {"movies", "1", false},
	} {
		t.Run(name, func(t *testing.T) {
			id, found, err := s.CinemaOf(bg, tc.kind, tc.key)
			if err != nil || found != tc.found || found && id != home {
				t.Errorf("-> %d %v %v, want %d %v", id, found, err, home, tc.found)
			}
		})
	}
	t.Run("scopes", func(t *testing.T) {
		other, err := store.InsertCinema(bg, d.DB, "Riverside", "Asia/Shanghai", "CNY", d.Clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := store.SetStaffCinemas(bg, d.DB, d.staffID, []int64{other}); err != nil {
			t.Fatal(err)
		}
		for name, tc := range map[string]struct {
			u    services.User
			want []int64
		}{
			"limited staff":   {services.User{ID: d.staffID, Role: services.RoleStaff}, []int64{other}},
			"unlimited staff": {services.User{ID: d.User(3), Role: services.RoleStaff}, nil},
			"admin with rows": {services.User{ID: d.staffID, Role: services.RoleAdmin}, nil},
		} {
			t.Run(name, func(t *testing.T) {
				got, err := s.ScopeOf(bg, &tc.u)
				if err != nil || len(got.IDs) != len(tc.want) || len(tc.want) > 0 && got.IDs[0] != tc.want[0] {
					t.Errorf("scope %v %v, want %v", got.IDs, err, tc.want)
				}
				if got.Allows(home) != (len(tc.want) == 0) {
					t.Errorf("allows the home cinema: %v", got.Allows(home))
				}
			})
		}
	})
}
