package web

import (
	"fmt"
	"strings"
	"testing"
)

// TestAuthAPI_EmailSpellings drives register and login through HTTP: an accented
// address is another account, full-width capitals are the same account, invisible
// characters are refused, and a locked-out account is locked in every spelling.
func TestAuthAPI_EmailSpellings(t *testing.T) {
	a := newTestApp(t, func(c *Config) { c.RateLoginPerMinute, c.RateLoginBurst = 4, 4 })
	register := func(email, pw string) apiResp {
		return a.do("POST", "/api/v1/auth/register", "", map[string]string{"email": email, "password": pw, "name": "Anna"}, nil)
	}
	login := func(email, pw string) apiResp {
		return a.do("POST", "/api/v1/auth/login", "", map[string]string{"email": email, "password": pw}, nil)
	}
	r := register("ánna@x.test", "attacker-pw")
	if r.status != 201 {
		t.Fatalf("register ánna@x.test: %d %s", r.status, r.body)
	}
	attacker := r.json(t)["user_id"]
	r = register("anna@x.test", "anna-password")
	if r.status != 201 {
		t.Fatalf("register anna@x.test after ánna@x.test: %d %s, want 201", r.status, r.body)
	}
	anna := r.json(t)["user_id"]
	if anna == attacker {
		t.Fatalf("one account %v for anna@ and ánna@", anna)
	}
	if r := register("ＡＮＮＡ@x.test", "twin-password"); r.status != 409 || r.code() != "CONFLICT" {
		t.Errorf("register ＡＮＮＡ@x.test: %d %s, want 409 CONFLICT", r.status, r.body)
	}
	r = login("ＡＮＮＡ@x.test", "anna-password") // attempt 1 of anna's 4
	if r.status != 200 || r.json(t)["user_id"] != anna {
		t.Fatalf("login ＡＮＮＡ@x.test: %d %s, want anna's account %v", r.status, r.body, anna)
	}
	for _, bad := range []string{"an\u200bna@x.test", "\u202eanna@x.test", "anna\u2066@x.test"} {
		r := login(bad, "anna-password")
		if r.status != 400 || r.code() != "INVALID_REQUEST" || !strings.Contains(string(r.body), "not a usable email address") {
			t.Errorf("login %+q: %d %s, want 400 INVALID_REQUEST not a usable email address", bad, r.status, r.body)
		}
		if r := register(bad, "anna-password"); r.status != 400 || r.code() != "INVALID_REQUEST" {
			t.Errorf("register %+q: %d %s, want 400 INVALID_REQUEST", bad, r.status, r.body)
		}
	}
	unknown := login("nobody@x.test", "anna-password")
	for i := 0; i < 3; i++ { // attempts 2..4
		r = login("anna@x.test", "wrong-password")
		if r.status != 401 || string(r.body) != string(unknown.body) {
			t.Fatalf("wrong password %d: %d %s; want the same 401 as an unknown email (%s)", i+1, r.status, r.body, unknown.body)
		}
	}
	for _, spelling := range []string{"anna@x.test", "ANNA@x.test", "ＡＮＮＡ@x.test", "ａｎｎａ@ｘ.ｔｅｓｔ", " Anna@X.Test "} {
		r := login(spelling, "anna-password")
		if r.status != 429 || r.code() != "RATE_LIMITED" || r.header.Get("Retry-After") == "" {
			t.Errorf("login %+q after lockout: %d %s, want 429 RATE_LIMITED", spelling, r.status, r.body)
		}
	}
	if r := login("ánna@x.test", "attacker-pw"); r.status != 200 || r.json(t)["user_id"] != attacker {
		t.Errorf("login ánna@x.test, another account: %d %s", r.status, r.body)
	}
}

// TestAuthAPI_LoginLimitedPerClientAddress: one client trying many accounts is stopped
// by the per-address limit, whichever emails it tries.
func TestAuthAPI_LoginLimitedPerClientAddress(t *testing.T) {
	a := newTestApp(t, func(c *Config) {
		c.RateLoginPerMinute, c.RateLoginBurst = 1000, 1000
		c.RateLoginIPPerMinute, c.RateLoginIPBurst = 5, 5
	})
	for i := 0; i < 5; i++ {
		r := a.do("POST", "/api/v1/auth/login", "", map[string]string{"email": fmt.Sprintf("guess%d@x.test", i), "password": "password-123"}, nil)
		if r.status != 401 {
			t.Fatalf("attempt %d: %d %s, want 401", i+1, r.status, r.body)
		}
	}
	acc := a.accounts["customer"]
	r := a.do("POST", "/api/v1/auth/login", "", map[string]string{"email": acc.Email, "password": acc.Password}, nil)
	if r.status != 429 || r.code() != "RATE_LIMITED" || r.header.Get("Retry-After") == "" {
		t.Fatalf("6th attempt from one address: %d %s, want 429 RATE_LIMITED", r.status, r.body)
	}
}
