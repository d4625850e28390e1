package web

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"seatflow/services/accounts"
)

// resetMails returns the links of the password reset e-mails queued for email, oldest
// first, read from each e-mail as it is sent (the outbox holds them only sealed).
func (a *testApp) resetMails(email string) []string {
	a.t.Helper()
	var ids []int64
	if err := a.DB.Select(&ids, "SELECT id FROM mail_outbox WHERE kind = 'password_reset' AND to_addr = ? ORDER BY id", email); err != nil {
		a.t.Fatal(err)
	}
	links := make([]string, 0, len(ids))
	for _, id := range ids {
		links = append(links, a.sentResetLink(id))
	}
	return links
}

// sentResetLink is the reset link of outbox row id as the e-mail sent carries it.
func (a *testApp) sentResetLink(id int64) string {
	a.t.Helper()
	ctx := context.Background()
	row, err := a.mailbox.Outbox.Get(ctx, id)
	if err != nil {
		a.t.Fatal(err)
	}
	m, err := a.mailbox.Renderer.Render(ctx, row)
	if err != nil {
		a.t.Fatalf("e-mail %d as sent: %v", id, err)
	}
	link := resetLinkRE.FindString(m.Text)
	if link == "" {
		a.t.Fatalf("e-mail %d as sent has no reset link:\n%s", id, m.Text)
	}
	return link
}

var resetLinkRE = regexp.MustCompile(`https?://\S+/password/reset\?token=[A-Za-z0-9_-]+`)

// resetToken is the token of a reset link.
func resetToken(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil || u.Query().Get("token") == "" {
		t.Fatalf("reset link %q has no token", link)
	}
	return u.Query().Get("token")
}

// count is a single number a query returns.
func (a *testApp) count(q string, args ...any) int {
	a.t.Helper()
	var n int
	if err := a.DB.Get(&n, q, args...); err != nil {
		a.t.Fatal(err)
	}
	return n
}

// resetUser registers an account and returns its email (password "password-123").
func (a *testApp) resetUser(t *testing.T) string {
	t.Helper()
	email := fmt.Sprintf("reset%d-%d@example.test", time.Now().UnixNano(), userSeq.Add(1))
	if r := a.do("POST", "/api/v1/auth/register", "", map[string]string{"email": email, "password": "password-123", "name": "Rita"}, nil); r.status != 201 {
		t.Fatalf("register: %d %s", r.status, r.body)
	}
	return email
}

func (a *testApp) login(email, pw string) apiResp {
	return a.do("POST", "/api/v1/auth/login", "", map[string]string{"email": email, "password": pw}, nil)
}

// requestLink asks for a reset link for email and returns the newest one queued.
func (a *testApp) requestLink(t *testing.T, email string) string {
	t.Helper()
	if r := a.do("POST", "/api/v1/auth/password-reset", "", map[string]string{"email": email}, nil); r.status != 202 {
		t.Fatalf("password-reset %s: %d %s", email, r.status, r.body)
	}
	links := a.resetMails(email)
	if len(links) == 0 {
		t.Fatalf("no reset e-mail queued for %s", email)
	}
	return links[len(links)-1]
}

func (a *testApp) confirmReset(token, pw string) apiResp {
	return a.do("POST", "/api/v1/auth/password-reset/confirm", "", map[string]string{"token": token, "password": pw}, nil)
}

// TestPasswordReset_API walks the reset rules through HTTP on real stores: the
// e-mailed link resets the password once and ends every session (in a second process's
// session cache too); an unknown address gets the same answer and no e-mail; an expired,
// used or superseded link is refused; of two uses at once exactly one wins; bad input
// and rate limits change nothing.
func TestPasswordReset_API(t *testing.T) {
	a := newTestApp(t, func(c *Config) {
		c.RateResetPerHour, c.RateResetBurst = 3, 3
		c.RateResetIPPerHour, c.RateResetIPBurst = 40, 40
		c.PublicURL = "https://tickets.example.test/"
	})

	t.Run("the e-mailed link resets the password and ends every session", func(t *testing.T) {
		email := a.resetUser(t)
		var sessions []string
		for i := 0; i < 2; i++ {
			r := a.login(email, "password-123")
			if r.status != 200 {
				t.Fatalf("login: %d %s", r.status, r.body)
			}
			sessions = append(sessions, r.json(t)["token"].(string))
		}
		b, bBase := otherInstance(t, a.Cfg, a.clock)
		if !eventuallyTrue(func() bool { return b.sessions.Active() }) {
			t.Fatal("the second instance's session cache never subscribed")
		}
		for _, s := range sessions { // warm both caches
			if r := a.do("GET", "/api/v1/orders", s, nil, nil); r.status != 200 {
				t.Fatalf("orders on A: %d", r.status)
			}
			if r := a.doAt(bBase, "GET", "/api/v1/orders", s, nil); r.status != 200 {
				t.Fatalf("orders on B: %d", r.status)
			}
		}
		link := a.requestLink(t, email)
		if want := "https://tickets.example.test/password/reset?token="; !strings.HasPrefix(link, want) {
			t.Fatalf("link %q does not start with %q", link, want)
		}
		tok := resetToken(t, link)
		if len(tok) != 43 {
			t.Errorf("token %q is %d characters, want 43 (32 bytes base64url)", tok, len(tok))
		}
		if n := a.count("SELECT COUNT(*) FROM password_resets WHERE token_hash = UNHEX(SHA2(?, 256))", tok); n != 1 {
			t.Errorf("%d reset rows keyed by the token's SHA-256, want 1", n)
		}
		if n := a.count("SELECT COUNT(*) FROM password_resets WHERE token_hash = ?", tok); n != 0 {
			t.Error("the token itself is stored")
		}
		if r := a.confirmReset(tok, "new-password-9"); r.status != 200 || r.json(t)["status"] != "reset" {
			t.Fatalf("confirm: %d %s", r.status, r.body)
		}
		for i, s := range sessions {
			if r := a.do("GET", "/api/v1/orders", s, nil, nil); r.status != 401 {
				t.Errorf("session %d on A after the reset: %d, want 401", i, r.status)
			}
			if !eventuallyTrue(func() bool { return a.doAt(bBase, "GET", "/api/v1/orders", s, nil).status == 401 }) {
				t.Errorf("session %d still works on B (its session cache) after the reset", i)
			}
		}
		if n := a.count("SELECT COUNT(*) FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = ?", email); n != 0 {
			t.Errorf("%d sessions left, want 0", n)
		}
		if r := a.login(email, "password-123"); r.status != 401 {
			t.Errorf("old password: %d, want 401", r.status)
		}
		if r := a.login(email, "new-password-9"); r.status != 200 {
			t.Errorf("new password: %d %s", r.status, r.body)
		}
		if r := a.confirmReset(tok, "third-password-1"); r.status != 400 || r.code() != "RESET_TOKEN_INVALID" {
			t.Errorf("second use: %d %s, want 400 RESET_TOKEN_INVALID", r.status, r.body)
		}
	})

	t.Run("an unknown address gets the same answer and no e-mail", func(t *testing.T) {
		known := a.do("POST", "/api/v1/auth/password-reset", "", map[string]string{"email": a.resetUser(t)}, nil)
		before := a.count("SELECT COUNT(*) FROM mail_outbox")
		rows := a.count("SELECT COUNT(*) FROM password_resets")
		unknown := a.do("POST", "/api/v1/auth/password-reset", "", map[string]string{"email": "nobody-here@example.test"}, nil)
		if unknown.status != known.status || string(unknown.body) != string(known.body) {
			t.Errorf("unknown address: %d %s; known: %d %s", unknown.status, unknown.body, known.status, known.body)
		}
		if n := a.count("SELECT COUNT(*) FROM mail_outbox"); n != before {
			t.Errorf("outbox %d -> %d rows for an unknown address", before, n)
		}
		if n := a.count("SELECT COUNT(*) FROM password_resets"); n != rows {
			t.Errorf("password_resets %d -> %d rows for an unknown address", rows, n)
		}
	})

	t.Run("an expired link is refused (the injected clock)", func(t *testing.T) {
		defer a.clock.Set(0)
		email := a.resetUser(t)
		tok := resetToken(t, a.requestLink(t, email))
		a.clock.Set(accounts.ResetTokenTTL - time.Minute)
		if r := a.do("GET", "/password/reset?token="+tok, "", nil, nil); r.status != 200 {
			t.Errorf("the page a minute before expiry: %d, want 200", r.status)
		}
		a.clock.Set(accounts.ResetTokenTTL + time.Second)
		if r := a.do("GET", "/password/reset?token="+tok, "", nil, nil); r.status != 400 {
			t.Errorf("the page after expiry: %d, want 400", r.status)
		}
		if r := a.confirmReset(tok, "new-password-9"); r.status != 400 || r.code() != "RESET_TOKEN_INVALID" {
			t.Errorf("expired: %d %s, want 400 RESET_TOKEN_INVALID", r.status, r.body)
		}
		a.clock.Set(0)
		if r := a.login(email, "password-123"); r.status != 200 {
			t.Errorf("the old password after a refused reset: %d", r.status)
		}
	})

	t.Run("two uses at once: exactly one wins", func(t *testing.T) {
		email := a.resetUser(t)
		tok := resetToken(t, a.requestLink(t, email))
		const n = 6
		res := make([]apiResp, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				res[i] = a.confirmReset(tok, fmt.Sprintf("racer-password-%d", i))
			}()
		}
		close(start)
		wg.Wait()
		winner, refused := -1, 0
		for i, r := range res {
			switch {
			case r.status == 200 && winner < 0:
				winner = i
			case r.status == 200:
				t.Errorf("uses %d and %d both succeeded", winner, i)
			case r.status == 400 && r.code() == "RESET_TOKEN_INVALID":
				refused++
			default:
				t.Errorf("use %d: %d %s", i, r.status, r.body)
			}
		}
		t.Logf("%d concurrent uses: winner %d, %d refused", n, winner, refused)
		if winner < 0 || refused != n-1 {
			t.Fatalf("winner %d, %d refused; want one winner and %d refused", winner, refused, n-1)
		}
		if r := a.login(email, fmt.Sprintf("racer-password-%d", winner)); r.status != 200 {
			t.Errorf("the winner's password: %d", r.status)
		}
	})

	t.Run("using a link ends the account's other links", func(t *testing.T) {
		email := a.resetUser(t)
		first := resetToken(t, a.requestLink(t, email))
		second := resetToken(t, a.requestLink(t, email))
		if r := a.confirmReset(second, "new-password-9"); r.status != 200 {
			t.Fatalf("second link: %d %s", r.status, r.body)
		}
		if r := a.confirmReset(first, "other-password-9"); r.status != 400 || r.code() != "RESET_TOKEN_INVALID" {
			t.Errorf("first link after the second was used: %d %s, want 400 RESET_TOKEN_INVALID", r.status, r.body)
		}
	})

	t.Run("bad input changes nothing", func(t *testing.T) {
		email := a.resetUser(t)
		tok := resetToken(t, a.requestLink(t, email))
		for name, body := range map[string]map[string]string{
			"short password": {"token": tok, "password": "short"},
			"long password":  {"token": tok, "password": strings.Repeat("x", 73)},
		} {
			if r := a.do("POST", "/api/v1/auth/password-reset/confirm", "", body, nil); r.status != 400 || r.code() != "INVALID_REQUEST" {
				t.Errorf("%s: %d %s, want 400 INVALID_REQUEST", name, r.status, r.body)
			}
		}
		for name, tk := range map[string]string{"unknown": strings.Repeat("A", 43), "empty": "", "huge": strings.Repeat("A", 5000)} {
			if r := a.confirmReset(tk, "new-password-9"); r.status != 400 || r.code() != "RESET_TOKEN_INVALID" {
				t.Errorf("%s token: %d %s, want 400 RESET_TOKEN_INVALID", name, r.status, r.body)
			}
		}
		for name, body := range map[string]any{"no email": map[string]string{}, "not an address": map[string]string{"email": "no\u200bbody@x.test"}, "not JSON": "{"} {
			if r := a.do("POST", "/api/v1/auth/password-reset", "", body, nil); r.status != 400 || r.code() != "INVALID_REQUEST" {
				t.Errorf("request with %s: %d %s, want 400 INVALID_REQUEST", name, r.status, r.body)
			}
		}
		r := a.uxPost("/password/reset?token="+url.QueryEscape(tok), "/password/reset", "", url.Values{"token": {tok}, "password": {"new-password-9"}, "password2": {"new-password-8"}})
		if r.status != 400 || !strings.Contains(string(r.body), "The two passwords are not the same.") {
			t.Errorf("page with two different passwords: %d, want 400 with the mismatch message", r.status)
		}
		if n := a.count("SELECT COUNT(*) FROM password_resets WHERE token_hash = UNHEX(SHA2(?, 256)) AND used_at IS NULL", tok); n != 1 {
			t.Error("bad input used up the link")
		}
		if r := a.login(email, "password-123"); r.status != 200 {
			t.Errorf("the old password after bad input: %d", r.status)
		}
		if r := a.confirmReset(tok, "new-password-9"); r.status != 200 {
			t.Errorf("the link after bad input: %d %s", r.status, r.body)
		}
	})

	t.Run("over the per-address limit: 429 and no rows", func(t *testing.T) {
		email := a.resetUser(t)
		for i := 0; i < 3; i++ {
			a.requestLink(t, email)
		}
		mails, rows := a.count("SELECT COUNT(*) FROM mail_outbox"), a.count("SELECT COUNT(*) FROM password_resets")
		r := a.do("POST", "/api/v1/auth/password-reset", "", map[string]string{"email": strings.ToUpper(email)}, nil)
		if r.status != 429 || r.code() != "RATE_LIMITED" || r.header.Get("Retry-After") == "" {
			t.Errorf("fourth request in another spelling: %d %s, want 429 RATE_LIMITED with Retry-After", r.status, r.body)
		}
		if m, n := a.count("SELECT COUNT(*) FROM mail_outbox"), a.count("SELECT COUNT(*) FROM password_resets"); m != mails || n != rows {
			t.Errorf("rate-limited request wrote: outbox %d -> %d, resets %d -> %d", mails, m, rows, n)
		}
		page := a.uxPost("/password/forgot", "/password/forgot", "", url.Values{"email": {email}})
		if page.status != 429 || !strings.Contains(string(page.body), "Too many reset requests for now. You can ask again in ") {
			t.Errorf("the page over the limit: %d %s, want 429 with when to ask again", page.status, page.body)
		}
	})

	t.Run("over the per-client limit: 429 for any address", func(t *testing.T) {
		email := a.resetUser(t)
		limited := false
		for i := 0; i < 40 && !limited; i++ {
			r := a.do("POST", "/api/v1/auth/password-reset", "", map[string]string{"email": fmt.Sprintf("spray%d@example.test", i)}, nil)
			limited = r.status == 429
		}
		if !limited {
			t.Fatal("40 requests from one client for 40 addresses were never limited")
		}
		rows := a.count("SELECT COUNT(*) FROM password_resets")
		if r := a.do("POST", "/api/v1/auth/password-reset", "", map[string]string{"email": email}, nil); r.status != 429 {
			t.Errorf("a fresh account's address from the limited client: %d, want 429", r.status)
		}
		if n := a.count("SELECT COUNT(*) FROM password_resets"); n != rows {
			t.Errorf("resets %d -> %d over the client limit", rows, n)
		}
	})
}

// eventuallyTrue polls f for up to two seconds.
func eventuallyTrue(f func() bool) bool {
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if f() {
			return true
		}
	}
	return f()
}

// TestPasswordReset_TokenNeverAtRestInClear: after a reset request, no column of
// mail_outbox or password_resets holds the token (nor the link) in clear, the admin
// mailbox's list and message page do not show it and say the link is redacted, and the
// e-mail as sent carries the link, which works.
func TestPasswordReset_TokenNeverAtRestInClear(t *testing.T) {
	a := newTestApp(t, nil)
	email := a.resetUser(t)
	link := a.requestLink(t, email)
	tok := resetToken(t, link)
	var id int64
	if err := a.DB.Get(&id, "SELECT MAX(id) FROM mail_outbox WHERE kind = 'password_reset' AND to_addr = ?", email); err != nil {
		t.Fatal(err)
	}
	for table, cols := range map[string]string{
		"mail_outbox": `CONCAT_WS('|', id, kind, dedupe_key, COALESCE(user_id, ''), to_addr, lang, COALESCE(order_no, ''), COALESCE(show_id, ''),
			COALESCE(data, ''), COALESCE(facts, ''), COALESCE(message_key, ''), status, COALESCE(last_error, ''))`,
		"password_resets": `CONCAT_WS('|', id, HEX(token_hash), token_hash, user_id, created_at, expires_at, COALESCE(used_at, ''))`,
	} {
		var rows []string
		if err := a.DB.Select(&rows, "SELECT "+cols+" FROM "+table); err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if strings.Contains(r, tok) || strings.Contains(r, "token=") {
				t.Errorf("%s holds the reset token in clear: %s", table, r)
			}
		}
	}
	admin := a.demoToken("admin")
	for _, path := range []string{"/admin/mailbox", fmt.Sprintf("/admin/mailbox/%d", id)} {
		if body := string(a.getPage(path, admin).body); strings.Contains(body, tok) {
			t.Errorf("%s shows the reset token", path)
		}
	}
	if body := string(a.getPage(fmt.Sprintf("/admin/mailbox/%d", id), admin).body); !strings.Contains(body, "link redacted") {
		t.Errorf("the mailbox does not say the link is redacted")
	}
	if r := a.confirmReset(tok, "new-password-77"); r.status != 200 {
		t.Fatalf("the link as sent does not work: %d %s", r.status, r.body)
	}
}
