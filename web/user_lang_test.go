package web

import (
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// userLang returns users.lang of the account with email.
func (a *testApp) userLang(email string) string {
	a.t.Helper()
	var lang string
	if err := a.DB.Get(&lang, "SELECT lang FROM users WHERE email = ?", email); err != nil {
		a.t.Fatalf("users.lang of %s: %v", email, err)
	}
	return lang
}

// registerOnPage fills in the register page in the language of the sf_lang cookie, as a
// browser would, and returns the answer (not following its redirect).
func (a *testApp) registerOnPage(lang, email string) apiResp {
	a.t.Helper()
	req, _ := http.NewRequest("GET", a.base+"/register", nil)
	req.Header.Set("Cookie", "sf_lang="+lang)
	page := a.sendReq(req)
	m := csrfInput.FindStringSubmatch(string(page.body))
	if page.status != 200 || m == nil {
		a.t.Fatalf("GET /register: %d, CSRF token found: %v", page.status, m != nil)
	}
	form := url.Values{"name": {"Lin"}, "email": {email}, "password": {"password-123"}, "_csrf": {html.UnescapeString(m[1])}}
	req, _ = http.NewRequest("POST", a.base+"/register", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Add("Cookie", "sf_lang="+lang)
	for _, c := range page.header.Values("Set-Cookie") {
		req.Header.Add("Cookie", strings.SplitN(c, ";", 2)[0])
	}
	res, err := noRedirect.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return apiResp{status: res.StatusCode, body: b, header: res.Header}
}

// TestUserLang_RegisterAndSwitcherRecordIt: users.lang (the language of a user's
// e-mails) is the register page's language, follows a signed-in user's use of the
// language switcher both ways (an anonymous switch records nothing and still works),
// and is the API register's optional "lang", whose bad value creates no account.
func TestUserLang_RegisterAndSwitcherRecordIt(t *testing.T) {
	a := newTestApp(t, nil)
	stamp := time.Now().UnixNano() // unique addresses: the database outlives the test
	mail := func(who string) string { return fmt.Sprintf("%s-%d@example.test", who, stamp) }

	zh, en := mail("zh"), mail("en")
	for lang, email := range map[string]string{"zh-Hans": zh, "en": en} {
		if r := a.registerOnPage(lang, email); r.status != http.StatusSeeOther {
			t.Fatalf("register in %s: %d %s", lang, r.status, r.body)
		}
		if got := a.userLang(email); got != lang {
			t.Errorf("registered on the %s page: users.lang %q", lang, got)
		}
	}

	tok, _ := a.registerAs(mail("switch"))
	for _, lang := range []string{"zh-Hans", "zh-Hans", "en"} {
		r := a.langGet("/shows?lang="+lang, tok, nil)
		if r.status != http.StatusSeeOther || r.header.Get("Location") != "/shows" {
			t.Fatalf("switch to %s: %d to %q", lang, r.status, r.header.Get("Location"))
		}
		if got := a.userLang(mail("switch")); got != lang {
			t.Errorf("after switching to %s: users.lang %q", lang, got)
		}
	}
	if r := a.langGet("/?lang=zh-Hans", "", nil); r.status != http.StatusSeeOther || !strings.Contains(r.header.Get("Set-Cookie"), "sf_lang=zh-Hans") {
		t.Errorf("anonymous switch: %d %q", r.status, r.header.Get("Set-Cookie"))
	}

	api := mail("api")
	if r := a.do("POST", "/api/v1/auth/register", "", map[string]string{"email": api, "password": "password-123", "name": "Api", "lang": "zh-Hans"}, nil); r.status != 201 {
		t.Fatalf("API register with lang: %d %s", r.status, r.body)
	}
	if got := a.userLang(api); got != "zh-Hans" {
		t.Errorf("API register with lang zh-Hans: users.lang %q", got)
	}
	bad := mail("bad")
	if r := a.do("POST", "/api/v1/auth/register", "", map[string]string{"email": bad, "password": "password-123", "name": "Bad", "lang": "fr"}, nil); r.status != 400 || r.code() != "INVALID_REQUEST" {
		t.Errorf("API register with lang fr: %d %s", r.status, r.body)
	}
	var n int
	if err := a.DB.Get(&n, "SELECT COUNT(*) FROM users WHERE email = ?", bad); err != nil || n != 0 {
		t.Errorf("a refused register left %d accounts (%v)", n, err)
	}
}
