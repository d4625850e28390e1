package services

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// account creates an account with a role and a chosen email, returning its id.
func (e *testEnv) account(email, role string) int64 {
	e.t.Helper()
	id, err := e.users.Create(context.Background(), email, "password-123", "Name of "+email, role)
	if err != nil {
		e.t.Fatal(err)
	}
	return id
}

func (e *testEnv) roleOf(id int64) string {
	e.t.Helper()
	var r string
	if err := e.db.Get(&r, "SELECT role FROM users WHERE id = ?", id); err != nil {
		e.t.Fatal(err)
	}
	return r
}

// TestUserAdmin_SetRole: a role change is written with its audit entry (who, when,
// before, after, in the same transaction); the refusals (unknown role, own role, the
// last admin, an actor who is not an admin, an unknown account) change nothing and
// record nothing; setting the role an account has records nothing.
func TestUserAdmin_SetRole(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	var told []int64
	ua := NewUserAdmin(e.db, NewAudit(e.db, e.clock), func(_ context.Context, id int64) { told = append(told, id) })
	admin := e.account("boss@example.test", RoleAdmin)
	staff := e.account("clerk@example.test", RoleStaff)
	cust := e.account("ada@example.test", RoleCustomer)

	got, err := ua.SetRole(ctx, admin, cust, RoleStaff)
	if err != nil || got.Role != RoleStaff || got.ID != cust || e.roleOf(cust) != RoleStaff {
		t.Fatalf("promote: %+v %v (stored %s)", got, err, e.roleOf(cust))
	}
	entries := e.auditOf("user", fmt.Sprint(cust))
	if len(entries) != 1 {
		t.Fatalf("%d audit entries, want 1", len(entries))
	}
	en := entries[0]
	var before, after map[string]string
	_ = json.Unmarshal(en.Before, &before)
	_ = json.Unmarshal(en.After, &after)
	if en.Action != "user.role" || en.ActorID == nil || *en.ActorID != admin || en.ActorEmail != "boss@example.test" ||
		!en.CreatedAt.Equal(e.clock.Now()) || before["role"] != RoleCustomer || after["role"] != RoleStaff ||
		before["email"] != "ada@example.test" || after["id"] != fmt.Sprint(cust) {
		t.Errorf("audit entry %+v before %v after %v", en, before, after)
	}

	if _, err := ua.SetRole(ctx, admin, cust, RoleStaff); err != nil {
		t.Fatalf("same role again: %v", err)
	}
	if n := len(e.auditOf("user", fmt.Sprint(cust))); n != 1 {
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
		{"unknown role", admin, cust, "owner", CodeInvalidRequest, "role must be"},
		{"empty role", admin, cust, "", CodeInvalidRequest, "role must be"},
		{"role in another case", admin, cust, "Admin", CodeInvalidRequest, "role must be"},
		{"the last admin's own demotion", admin, admin, RoleStaff, CodeConflict, "from boss@example.test: it is the last admin"},
		{"staff may not demote the admin", staff, admin, RoleCustomer, CodeForbidden, "only an admin"},
		{"staff may not change roles", staff, cust, RoleAdmin, CodeForbidden, "only an admin"},
		{"unknown account", admin, 999999, RoleStaff, CodeNotFound, "not found"},
	}
	for _, c := range refusals {
		t.Run(c.name, func(t *testing.T) {
			before := e.countRows("audit_log")
			roleBefore := RoleAdmin
			if c.target != 999999 {
				roleBefore = e.roleOf(c.target)
			}
			_, err := ua.SetRole(ctx, c.actor, c.target, c.role)
			if ErrorCode(err) != c.code || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("err %v, want %s saying %q", err, c.code, c.msg)
			}
			if c.target != 999999 && e.roleOf(c.target) != roleBefore {
				t.Errorf("role changed to %s by a refused call", e.roleOf(c.target))
			}
			if n := e.countRows("audit_log"); n != before {
				t.Errorf("a refused call recorded %d audit entries", n-before)
			}
		})
	}

	t.Run("the last admin cannot be demoted", func(t *testing.T) {
		second := e.account("second@example.test", RoleAdmin)
		// second demotes the first: allowed, another admin (second) is left
		if _, err := ua.SetRole(ctx, second, admin, RoleStaff); err != nil {
			t.Fatalf("demote one of two admins: %v", err)
		}
		// the demoted admin is refused from now on; second is the last admin
		if _, err := ua.SetRole(ctx, admin, second, RoleStaff); ErrorCode(err) != CodeForbidden {
			t.Fatalf("a demoted admin changed a role: %v", err)
		}
		// a third admin made, then second demoted by it: allowed; the third is last
		third := e.account("third@example.test", RoleAdmin)
		if _, err := ua.SetRole(ctx, third, second, RoleCustomer); err != nil {
			t.Fatalf("demote second: %v", err)
		}
		// with another admin there, one's own role is still refused
		fourth := e.account("fourth@example.test", RoleAdmin)
		_, err := ua.SetRole(ctx, third, third, RoleStaff)
		if ErrorCode(err) != CodeConflict || !strings.Contains(err.Error(), "your own role") || e.roleOf(third) != RoleAdmin {
			t.Fatalf("an admin changed its own role: %v, role %s", err, e.roleOf(third))
		}
		if _, err := ua.SetRole(ctx, fourth, third, RoleCustomer); err != nil || e.roleOf(third) != RoleCustomer {
			t.Fatalf("another admin changes it: %v", err)
		}
	})
}

// TestUserAdmin_LastAdminUnderRace: two admins demote each other at the same time;
// exactly one wins, so one admin is always left.
func TestUserAdmin_LastAdminUnderRace(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ua := NewUserAdmin(e.db, NewAudit(e.db, e.clock), nil)
	for round := 0; round < 5; round++ {
		a := e.account(fmt.Sprintf("a%d-%d@example.test", round, time.Now().UnixNano()), RoleAdmin)
		b := e.account(fmt.Sprintf("b%d-%d@example.test", round, time.Now().UnixNano()), RoleAdmin)
		// every other admin of earlier rounds leaves, so a and b are the only ones
		if _, err := e.db.Exec("UPDATE users SET role = 'staff' WHERE role = 'admin' AND id NOT IN (?, ?)", a, b); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, pair := range [][2]int64{{a, b}, {b, a}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = ua.SetRole(context.Background(), pair[0], pair[1], RoleStaff)
			}()
		}
		wg.Wait()
		var admins int
		if err := e.db.Get(&admins, "SELECT COUNT(*) FROM users WHERE role = 'admin'"); err != nil {
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
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	ua := NewUserAdmin(e.db, NewAudit(e.db, e.clock), nil)
	ada := e.account("ada.lovelace@cinema.test", RoleStaff)
	bob := e.account("bob_smith@cinema.test", RoleCustomer)
	carl := e.account("carl@other.test", RoleAdmin)
	ids := func(us []*UserAccount) []int64 {
		out := []int64{}
		for _, u := range us {
			out = append(out, u.ID)
		}
		return out
	}
	cases := []struct {
		name string
		f    UserFilter
		want []int64
	}{
		{"everyone newest first", UserFilter{}, []int64{carl, bob, ada}},
		{"part of the email", UserFilter{Email: "cinema.test"}, []int64{bob, ada}},
		{"another case", UserFilter{Email: "LOVELACE"}, []int64{ada}},
		{"full width letters", UserFilter{Email: "ＣＡＲＬ"}, []int64{carl}},
		{"underscore is no wildcard", UserFilter{Email: "a_a"}, []int64{}},
		{"underscore matches itself", UserFilter{Email: "b_s"}, []int64{bob}},
		{"percent is no wildcard", UserFilter{Email: "%"}, []int64{}},
		{"role", UserFilter{Role: RoleStaff}, []int64{ada}},
		{"email and role", UserFilter{Email: "cinema", Role: RoleAdmin}, []int64{}},
		{"limit", UserFilter{Limit: 2}, []int64{carl, bob}},
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
	for _, f := range []UserFilter{{Role: "owner"}, {Limit: -1}, {Limit: MaxUserListLimit + 1}} {
		if _, err := ua.ListUsers(ctx, f); ErrorCode(err) != CodeInvalidRequest {
			t.Errorf("%+v: %v, want INVALID_REQUEST", f, err)
		}
	}
}

// TestAudit_ListFilters: by actor email (any case), action, date range and the id
// cursor, newest first.
func TestAudit_ListFilters(t *testing.T) {
	e := newTestEnv(t, unlimited)
	ctx := context.Background()
	a := NewAudit(e.db, e.clock)
	e.exec("DELETE FROM audit_log") // the test hall's creation is not part of this story
	one := e.account("one@example.test", RoleStaff)
	two := e.account("two@example.test", RoleStaff)
	start := e.clock.Now()
	for i, w := range []struct {
		actor  int64
		action string
	}{{one, "show.create"}, {two, "show.update"}, {one, "order.refund"}, {two, "show.update"}} {
		if err := a.Record(ctx, e.db, w.actor, w.action, "show", fmt.Sprint(i), nil, map[string]int{"i": i}); err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(24 * time.Hour)
	}
	all, err := a.List(ctx, AuditFilter{})
	if err != nil || len(all) != 4 {
		t.Fatalf("all: %d %v", len(all), err)
	}
	order := func(es []*AuditEntry) string {
		s := ""
		for _, en := range es {
			s += en.EntityID
		}
		return s
	}
	cases := []struct {
		name string
		f    AuditFilter
		want string
	}{
		{"newest first", AuditFilter{}, "3210"},
		{"actor email in another case", AuditFilter{ActorEmail: "ONE@Example.test"}, "20"},
		{"action", AuditFilter{Action: "show.update"}, "31"},
		{"from", AuditFilter{From: start.Add(24 * time.Hour)}, "321"},
		{"to (exclusive)", AuditFilter{To: start.Add(48 * time.Hour)}, "10"},
		{"from and to", AuditFilter{From: start.Add(24 * time.Hour), To: start.Add(72 * time.Hour)}, "21"},
		{"before id", AuditFilter{BeforeID: all[1].ID}, "10"},
		{"before id and limit", AuditFilter{BeforeID: all[0].ID, Limit: 2}, "21"},
		{"nobody", AuditFilter{ActorEmail: "nobody@example.test"}, ""},
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
	if _, err := a.List(ctx, AuditFilter{ActorEmail: "not an email"}); ErrorCode(err) != CodeInvalidRequest {
		t.Errorf("a bad actor email: %v", err)
	}
	actions, entities, err := a.Kinds(ctx)
	if err != nil || fmt.Sprint(actions) != "[order.refund show.create show.update]" || fmt.Sprint(entities) != "[show]" {
		t.Errorf("kinds %v %v %v", actions, entities, err)
	}
}
