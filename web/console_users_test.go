package web

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// userRole reads an account's stored role.
func (a *testApp) userRole(id string) string {
	a.t.Helper()
	var r string
	if err := a.DB.Get(&r, "SELECT role FROM users WHERE id = ?", id); err != nil {
		a.t.Fatal(err)
	}
	return r
}

// TestAdminUserPages_ChangeRole: the admin lists accounts (filtered by a part of the
// email in another case), changes a customer to staff (303 with a notice; that
// account's open session is staff on its next request; the change is on the audit page
// with before and after); the last admin, one's own role and an unknown role are
// refused with their messages and change nothing.
func TestAdminUserPages_ChangeRole(t *testing.T) {
	a := newTestApp(t, nil)
	admin := a.demoToken("admin")
	adminEmail := a.accounts["admin"].Email
	email := fmt.Sprintf("grace%d@example.test", time.Now().UnixNano())
	userTok, uid := a.registerAs(email)
	var adminID string
	if err := a.DB.Get(&adminID, "SELECT id FROM users WHERE email = ?", adminEmail); err != nil {
		t.Fatal(err)
	}

	list := a.getPage("/admin/users?email="+url.QueryEscape(strings.ToUpper(email[:8])), admin)
	if list.status != 200 || !strings.Contains(string(list.body), email) || !strings.Contains(string(list.body), `action="/admin/users/`+uid+`/role`) {
		t.Fatalf("user list: %d\n%s", list.status, list.body)
	}
	if strings.Contains(string(list.body), adminEmail) {
		t.Errorf("the email filter did not filter: the admin is listed")
	}
	if r := a.do("GET", "/api/v1/admin/orders", userTok, nil, nil); r.status != 403 {
		t.Fatalf("a customer's session on the admin API: %d", r.status)
	}

	r := a.postPage("/admin/users", "/admin/users/"+uid+"/role?email=grace", admin, url.Values{"role": {"staff"}})
	if r.status != 303 || r.header.Get("Location") != "/admin/users?changed="+uid+"&email=grace" {
		t.Fatalf("change role: %d %s %s", r.status, r.header.Get("Location"), r.body)
	}
	if !strings.Contains(string(list.body), `action="/admin/users/`+uid+`/role?email=`) {
		t.Errorf("the role form does not carry the list's filter")
	}
	if got := a.userRole(uid); got != "staff" {
		t.Fatalf("role %s after the change", got)
	}
	if p := a.getPage("/admin/users?changed="+uid, admin); !strings.Contains(string(p.body), "The role of "+email+" is now staff.") {
		t.Errorf("no notice after the change:\n%s", p.body)
	}
	// the account's open session sees the new role on its next request
	if r := a.do("GET", "/api/v1/admin/orders", userTok, nil, nil); r.status != 200 {
		t.Errorf("the promoted account's session on the admin API: %d %s", r.status, r.body)
	}
	if p := a.getPage("/admin/orders", userTok); p.status != 200 {
		t.Errorf("the promoted account's session on the console: %d", p.status)
	}

	t.Run("audit page shows the change with before and after", func(t *testing.T) {
		p := a.getPage("/admin/audit?entity=user&entity_id="+uid+"&actor="+url.QueryEscape(strings.ToUpper(adminEmail)), admin)
		body := string(p.body)
		for _, want := range []string{"user.role", adminEmail, `<span class="diff-field">role</span> <span class="diff-old">customer</span>`, `<span class="diff-new">staff</span>`} {
			if !strings.Contains(body, want) {
				t.Errorf("audit page lacks %q:\n%s", want, body)
			}
		}
		if n := strings.Count(body, `<tr id="entry-`); n != 1 {
			t.Errorf("%d entries, want 1", n)
		}
	})

	refusals := []struct {
		name, target, role string
		status             int
		msg                string
	}{
		{"the last admin", adminID, "staff", 409, "Cannot take the admin role from " + adminEmail + ": it is the last admin; make another account admin first."},
		{"an unknown role", uid, "owner", 400, "Role must be one of customer, staff, admin."},
		{"no role", uid, "", 400, "Role must be one of customer, staff, admin."},
	}
	for _, c := range refusals {
		t.Run(c.name, func(t *testing.T) {
			before := a.userRole(c.target)
			r := a.postPage("/admin/users", "/admin/users/"+c.target+"/role", admin, url.Values{"role": {c.role}})
			if r.status != c.status || !strings.Contains(string(r.body), c.msg) {
				t.Errorf("%d, want %d saying %q:\n%s", r.status, c.status, c.msg, alertOf(r.body))
			}
			if got := a.userRole(c.target); got != before {
				t.Errorf("role changed from %s to %s by a refused form", before, got)
			}
		})
	}

	t.Run("own role with another admin there", func(t *testing.T) {
		if r := a.postPage("/admin/users", "/admin/users/"+uid+"/role", admin, url.Values{"role": {"admin"}}); r.status != 303 {
			t.Fatalf("promote to admin: %d %s", r.status, r.body)
		}
		r := a.postPage("/admin/users", "/admin/users/"+adminID+"/role", admin, url.Values{"role": {"customer"}})
		if r.status != 409 || !strings.Contains(string(r.body), "You cannot change your own role") || a.userRole(adminID) != "admin" {
			t.Errorf("own role: %d %s", r.status, r.body)
		}
		if p := a.getPage("/admin/users", admin); strings.Contains(string(p.body), `action="/admin/users/`+adminID+`/role`) {
			t.Errorf("the list offers the admin a form for its own role")
		}
		// the other admin may demote this one; the first admin is then the last again
		if r := a.do("PATCH", "/api/v1/admin/users/"+uid, admin, map[string]string{"role": "staff"}, nil); r.status != 200 || r.json(t)["role"] != "staff" {
			t.Fatalf("demote the second admin: %d %s", r.status, r.body)
		}
	})

	t.Run("API", func(t *testing.T) {
		staff := a.demoToken("staff")
		if r := a.do("GET", "/api/v1/admin/users", staff, nil, nil); r.status != 403 || r.code() != "FORBIDDEN" {
			t.Errorf("staff list users: %d %s", r.status, r.body)
		}
		if r := a.do("PATCH", "/api/v1/admin/users/"+uid, staff, map[string]string{"role": "admin"}, nil); r.status != 403 || a.userRole(uid) != "staff" {
			t.Errorf("staff PATCH role: %d %s", r.status, r.body)
		}
		var v struct {
			Users []struct{ ID, Email, Name, Role, CreatedAt string }
		}
		r := a.do("GET", "/api/v1/admin/users?role=staff&email="+url.QueryEscape(strings.ToUpper(email)), admin, nil, nil)
		if r.status != 200 || json.Unmarshal(r.body, &v) != nil || len(v.Users) != 1 || v.Users[0].ID != uid || v.Users[0].Role != "staff" {
			t.Errorf("list: %d %s", r.status, r.body)
		}
		cases := []struct {
			path string
			body any
			st   int
			code string
		}{
			{"/api/v1/admin/users/" + adminID, map[string]string{"role": "staff"}, 409, "CONFLICT"},
			{"/api/v1/admin/users/" + uid, map[string]string{"role": "root"}, 400, "INVALID_REQUEST"},
			{"/api/v1/admin/users/" + uid, `{"role":7}`, 400, "INVALID_REQUEST"},
			{"/api/v1/admin/users/" + uid, `{"rol":"staff"}`, 400, "INVALID_REQUEST"},
			{"/api/v1/admin/users/" + uid, nil, 400, "INVALID_REQUEST"},
			{"/api/v1/admin/users/999999", map[string]string{"role": "staff"}, 404, "NOT_FOUND"},
			{"/api/v1/admin/users/abc", map[string]string{"role": "staff"}, 404, "NOT_FOUND"},
		}
		for _, c := range cases {
			if r := a.do("PATCH", c.path, admin, c.body, nil); r.status != c.st || r.code() != c.code {
				t.Errorf("PATCH %s %v: %d %s, want %d %s", c.path, c.body, r.status, r.body, c.st, c.code)
			}
		}
		if a.userRole(adminID) != "admin" || a.userRole(uid) != "staff" {
			t.Errorf("roles changed by refused calls")
		}
	})
}

// alertOf is the error message of a page, for failure reports.
func alertOf(body []byte) string {
	if m := regexp.MustCompile(`<div class="alert" role="alert">([^<]*)</div>`).FindSubmatch(body); m != nil {
		return string(m[1])
	}
	return "(no alert)"
}
