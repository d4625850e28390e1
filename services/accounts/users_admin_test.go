package accounts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"seatflow/services"
	"seatflow/services/accounts"
	"seatflow/services/audit"
	"seatflow/services/internal/testenv"
)

// account creates an account with a role and a chosen email, returning its id.
func account(e *testenv.TestEnv, email, role string) int64 {
	e.T.Helper()
	id, err := e.Users.Create(context.Background(), email, "password-123", "Name of "+email, role)
	if err != nil {
		e.T.Fatal(err)
	}
	return id
}

func roleOf(e *testenv.TestEnv, id int64) string {
	e.T.Helper()
	var r string
	if err := e.DB.Get(&r, "SELECT role FROM users WHERE id = ?", id); err != nil {
		e.T.Fatal(err)
	}
	return r
}

// TestUserAdmin_SetRole: a role change is written with its audit entry (who, when,
// before, after, in the same transaction); the refusals (unknown role, own role, the
// last admin, an actor who is not an admin, an unknown account) change nothing and
// record nothing; setting the role an account has records nothing.
func TestUserAdmin_SetRole(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	var told []int64
	ua := accounts.NewUserAdmin(e.DB, audit.NewAudit(e.DB, e.Clock), func(_ context.Context, id int64) { told = append(told, id) })
	admin := account(e, "boss@example.test", services.RoleAdmin)
	staff := account(e, "clerk@example.test", services.RoleStaff)
	cust := account(e, "ada@example.test", services.RoleCustomer)

	got, err := ua.SetRole(ctx, admin, cust, services.RoleStaff)
	if err != nil || got.Role != services.RoleStaff || got.ID != cust || roleOf(e, cust) != services.RoleStaff {
		t.Fatalf("promote: %+v %v (stored %s)", got, err, roleOf(e, cust))
	}
	entries := e.AuditOf("user", fmt.Sprint(cust))
	if len(entries) != 1 {
		t.Fatalf("%d audit entries, want 1", len(entries))
	}
	en := entries[0]
	var before, after map[string]string
	_ = json.Unmarshal(en.Before, &before)
	_ = json.Unmarshal(en.After, &after)
	if en.Action != "user.role" || en.ActorID == nil || *en.ActorID != admin || en.ActorEmail != "boss@example.test" ||
		!en.CreatedAt.Equal(e.Clock.Now()) || before["role"] != services.RoleCustomer || after["role"] != services.RoleStaff ||
		before["email"] != "ada@example.test" || after["id"] != fmt.Sprint(cust) {
		t.Errorf("audit entry %+v before %v after %v", en, before, after)
	}

	if _, err := ua.SetRole(ctx, admin, cust, services.RoleStaff); err != nil {
		t.Fatalf("same role again: %v", err)
	}
	if n := len(e.AuditOf("user", fmt.Sprint(cust))); n != 1 {
		t.Errorf("setting the same role recorded %d entries, want still 1", n)
	}
	if fmt.Sprint(told) != fmt.Sprint([]int64{cust}) {
		t.Errorf("changed hook told %v, want [%d] (once, for the real change)", told, cust)
	}

	refusals := []struct {
		name          string
		actor, target int64
		role, code    string
		msg           string
	}{
		{"unknown role", admin, cust, "owner", services.CodeInvalidRequest, "role must be"},
		{"empty role", admin, cust, "", services.CodeInvalidRequest, "role must be"},
		{"role in another case", admin, cust, "Admin", services.CodeInvalidRequest, "role must be"},
		{"the last admin's own demotion", admin, admin, services.RoleStaff, services.CodeConflict, "from boss@example.test: it is the last admin"},
		{"staff may not demote the admin", staff, admin, services.RoleCustomer, services.CodeForbidden, "only an admin"},
		{"staff may not change roles", staff, cust, services.RoleAdmin, services.CodeForbidden, "only an admin"},
		{"unknown account", admin, 999999, services.RoleStaff, services.CodeNotFound, "not found"},
	}
	for _, c := range refusals {
		t.Run(c.name, func(t *testing.T) {
			before := e.CountRows("audit_log")
			roleBefore := services.RoleAdmin
			if c.target != 999999 {
				roleBefore = roleOf(e, c.target)
			}
			_, err := ua.SetRole(ctx, c.actor, c.target, c.role)
			if services.ErrorCode(err) != c.code || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("err %v, want %s saying %q", err, c.code, c.msg)
			}
			if c.target != 999999 && roleOf(e, c.target) != roleBefore {
				t.Errorf("role changed to %s by a refused call", roleOf(e, c.target))
			}
			if n := e.CountRows("audit_log"); n != before {
				t.Errorf("a refused call recorded %d audit entries", n-before)
			}
		})
	}

	t.Run("the last admin cannot be demoted", func(t *testing.T) {
		second := account(e, "second@example.test", services.RoleAdmin)
		// second demotes the first: allowed, another admin (second) is left
		if _, err := ua.SetRole(ctx, second, admin, services.RoleStaff); err != nil {
			t.Fatalf("demote one of two admins: %v", err)
		}
		// the demoted admin is refused from now on; second is the last admin
		if _, err := ua.SetRole(ctx, admin, second, services.RoleStaff); services.ErrorCode(err) != services.CodeForbidden {
			t.Fatalf("a demoted admin changed a role: %v", err)
		}
		// a third admin made, then second demoted by it: allowed; the third is last
		third := account(e, "third@example.test", services.RoleAdmin)
		if _, err := ua.SetRole(ctx, third, second, services.RoleCustomer); err != nil {
			t.Fatalf("demote second: %v", err)
		}
		// with another admin there, one's own role is still refused
		fourth := account(e, "fourth@example.test", services.RoleAdmin)
		_, err := ua.SetRole(ctx, third, third, services.RoleStaff)
		if services.ErrorCode(err) != services.CodeConflict || !strings.Contains(err.Error(), "your own role") || roleOf(e, third) != services.RoleAdmin {
			t.Fatalf("an admin changed its own role: %v, role %s", err, roleOf(e, third))
		}
		if _, err := ua.SetRole(ctx, fourth, third, services.RoleCustomer); err != nil || roleOf(e, third) != services.RoleCustomer {
			t.Fatalf("another admin changes it: %v", err)
		}
	})
}

// TestUserAdmin_LastAdminUnderRace: two admins demote each other at the same time;
// exactly one wins, so one admin is always left.
func TestUserAdmin_LastAdminUnderRace(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ua := accounts.NewUserAdmin(e.DB, audit.NewAudit(e.DB, e.Clock), nil)
	for round := 0; round < 5; round++ {
		a := account(e, fmt.Sprintf("a%d-%d@example.test", round, time.Now().UnixNano()), services.RoleAdmin)
		b := account(e, fmt.Sprintf("b%d-%d@example.test", round, time.Now().UnixNano()), services.RoleAdmin)
		// every other admin of earlier rounds leaves, so a and b are the only ones
		if _, err := e.DB.Exec("UPDATE users SET role = 'staff' WHERE role = 'admin' AND id NOT IN (?, ?)", a, b); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, pair := range [][2]int64{{a, b}, {b, a}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = ua.SetRole(context.Background(), pair[0], pair[1], services.RoleStaff)
			}()
		}
		wg.Wait()
		var admins int
		if err := e.DB.Get(&admins, "SELECT COUNT(*) FROM users WHERE role = 'admin'"); err != nil {
			t.Fatal(err)
		}
		if admins != 1 || (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("round %d: %d admins left, errors %v", round, admins, errs)
		}
	}
}

// TestUserAdmin_ListUsers filters by a part of the email in any case, by role, and
// limits, newest first; LIKE wildcards typed in the filter match themselves.
func TestUserAdmin_ListUsers(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	ua := accounts.NewUserAdmin(e.DB, audit.NewAudit(e.DB, e.Clock), nil)
	ada := account(e, "ada.lovelace@cinema.test", services.RoleStaff)
	bob := account(e, "bob_smith@cinema.test", services.RoleCustomer)
	carl := account(e, "carl@other.test", services.RoleAdmin)
	ids := func(us []*accounts.UserAccount) []int64 {
		out := []int64{}
		for _, u := range us {
			out = append(out, u.ID)
		}
		return out
	}
	cases := []struct {
		name string
		f    accounts.UserFilter
		want []int64
	}{
		{"everyone newest first", accounts.UserFilter{}, []int64{carl, bob, ada}},
		{"part of the email", accounts.UserFilter{Email: "cinema.test"}, []int64{bob, ada}},
		{"another case", accounts.UserFilter{Email: "LOVELACE"}, []int64{ada}},
		{"full width letters", accounts.UserFilter{Email: "ＣＡＲＬ"}, []int64{carl}},
		{"underscore is no wildcard", accounts.UserFilter{Email: "a_a"}, []int64{}},
		{"underscore matches itself", accounts.UserFilter{Email: "b_s"}, []int64{bob}},
		{"percent is no wildcard", accounts.UserFilter{Email: "%"}, []int64{}},
		{"role", accounts.UserFilter{Role: services.RoleStaff}, []int64{ada}},
		{"email and role", accounts.UserFilter{Email: "cinema", Role: services.RoleAdmin}, []int64{}},
		{"limit", accounts.UserFilter{Limit: 2}, []int64{carl, bob}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ua.ListUsers(ctx, c.f)
			if err != nil {
				t.Fatal(err)
			}
			if g := ids(got); fmt.Sprint(g) != fmt.Sprint(c.want) {
				t.Errorf("got %v, want %v", g, c.want)
			}
		})
	}
	for _, f := range []accounts.UserFilter{{Role: "owner"}, {Limit: -1}, {Limit: accounts.MaxUserListLimit + 1}} {
		if _, err := ua.ListUsers(ctx, f); services.ErrorCode(err) != services.CodeInvalidRequest {
			t.Errorf("%+v: %v, want INVALID_REQUEST", f, err)
		}
	}
}

// TestAudit_ListFilters: by actor email (any case), action, date range and the id
// cursor, newest first.
func TestAudit_ListFilters(t *testing.T) {
	e := testenv.NewTestEnv(t, testenv.Unlimited)
	ctx := context.Background()
	a := audit.NewAudit(e.DB, e.Clock)
	e.Exec("DELETE FROM audit_log") // the test hall's creation is not part of this story
	one := account(e, "one@example.test", services.RoleStaff)
	two := account(e, "two@example.test", services.RoleStaff)
	start := e.Clock.Now()
	for i, w := range []struct {
		actor  int64
		action string
	}{{one, "show.create"}, {two, "show.update"}, {one, "order.refund"}, {two, "show.update"}} {
		if err := a.Record(ctx, e.DB, w.actor, w.action, "show", fmt.Sprint(i), nil, map[string]int{"i": i}); err != nil {
			t.Fatal(err)
		}
		e.Clock.Advance(24 * time.Hour)
	}
	all, err := a.List(ctx, audit.AuditFilter{})
	if err != nil || len(all) != 4 {
		t.Fatalf("all: %d %v", len(all), err)
	}
	order := func(es []*audit.AuditEntry) string {
		s := ""
		for _, en := range es {
			s += en.EntityID
		}
		return s
	}
	cases := []struct {
		name string
		f    audit.AuditFilter
		want string
	}{
		{"newest first", audit.AuditFilter{}, "3210"},
		{"actor email in another case", audit.AuditFilter{ActorEmail: "ONE@Example.test"}, "20"},
		{"action", audit.AuditFilter{Action: "show.update"}, "31"},
		{"from", audit.AuditFilter{From: start.Add(24 * time.Hour)}, "321"},
		{"to (exclusive)", audit.AuditFilter{To: start.Add(48 * time.Hour)}, "10"},
		{"from and to", audit.AuditFilter{From: start.Add(24 * time.Hour), To: start.Add(72 * time.Hour)}, "21"},
		{"before id", audit.AuditFilter{BeforeID: all[1].ID}, "10"},
		{"before id and limit", audit.AuditFilter{BeforeID: all[0].ID, Limit: 2}, "21"},
		{"nobody", audit.AuditFilter{ActorEmail: "nobody@example.test"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := a.List(ctx, c.f)
			if err != nil {
				t.Fatal(err)
			}
			if g := order(got); g != c.want {
				t.Errorf("got %q, want %q", g, c.want)
			}
		})
	}
	if _, err := a.List(ctx, audit.AuditFilter{ActorEmail: "not an email"}); services.ErrorCode(err) != services.CodeInvalidRequest {
		t.Errorf("a bad actor email: %v", err)
	}
	actions, entities, err := a.Kinds(ctx)
	if err != nil || fmt.Sprint(actions) != "[order.refund show.create show.update]" || fmt.Sprint(entities) != "[show]" {
		t.Errorf("kinds %v %v %v", actions, entities, err)
	}
}
