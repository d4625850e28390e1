package web

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// langGet GETs path with the session of token ("" for none) and the extra headers,
// without following redirects.
func (a *testApp) langGet(path, token string, hdr map[string]string) apiResp {
	a.t.Helper()
	req, err := http.NewRequest(http.MethodGet, a.base+path, nil)
	if err != nil {
		a.t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if token != "" {
		req.AddCookie(&http.Cookie{Name: "sf_session", Value: token}) // joins a Cookie header given in hdr
	}
	return a.sendReq(req)
}

// TestI18nPages_ChineseFromAcceptLanguage: a browser asking for Chinese gets the home,
// movie, show, order, orders, sign-in and register pages in Simplified Chinese, with
// <html lang="zh-Hans">, dates in the Chinese form and Vary on the negotiation's inputs.
func TestI18nPages_ChineseFromAcceptLanguage(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(2)
	me := a.newUser()
	no := a.orderSeats(me, show, seats)
	zh := map[string]string{"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"}
	for _, tc := range []struct {
		path, token string
		want        []string
	}{
		{"/", "", []string{"正在上映", "选座购票", "全部影片", "今天 · "}},
		{"/shows/" + show, me, []string{"选择座位", "已选座位", "座位图例", "帮我选座", "屏幕", "排", "座，", "可选"}},
		{"/orders/" + no, me, []string{"订单", "待付款", "立即付款", "取消订单", "是的，取消本订单并释放我的座位", "剩余付款时间："}},
		{"/orders", me, []string{"我的订单", "待付款"}},
		{"/login", "", []string{"登录", "电子邮箱", "密码", "第一次来？"}},
		{"/register", "", []string{"创建账户", "8到72个字符。"}},
		{"/nowhere", "", []string{"页面不存在", "返回场次列表"}},
	} {
		t.Run(tc.path, func(t *testing.T) {
			r := a.langGet(tc.path, tc.token, zh)
			body := string(r.body)
			if r.status != 200 && tc.path != "/nowhere" {
				t.Fatalf("%d", r.status)
			}
			if !strings.Contains(body, `<html lang="zh-Hans">`) {
				t.Error(`no <html lang="zh-Hans">`)
			}
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("no %q", w)
				}
			}
			for _, en := range []string{">Sign in<", ">Shows<", "Skip to content", "What's on", "Choose your seats", "Pay now"} {
				if strings.Contains(body, en) {
					t.Errorf("still English: %q", en)
				}
			}
			if v := r.header.Values("Vary"); !strings.Contains(strings.Join(v, ","), "Accept-Language") || !strings.Contains(strings.Join(v, ","), "Cookie") {
				t.Errorf("Vary = %q", v)
			}
			if !strings.Contains(body, `aria-current="true">中文</a>`) {
				t.Error("the switcher does not mark 中文 as current")
			}
		})
	}
	// the show page's times in the Chinese form ("11月30日 周一 19:30")
	body := string(a.langGet("/shows/"+show, "", zh).body)
	if !strings.Contains(body, "月") || !strings.Contains(body, "日 周") {
		t.Error("the show's time is not in the Chinese date form")
	}
}

// TestI18nPages_SwitcherSetsCookieAndWins: ?lang= keeps the choice in the sf_lang
// cookie (a year, SameSite=Lax) and sends the browser to the same address without lang;
// the cookie then wins over Accept-Language. A junk lang is ignored.
func TestI18nPages_SwitcherSetsCookieAndWins(t *testing.T) {
	a := newTestApp(t, nil)
	en := map[string]string{"Accept-Language": "en-GB,en;q=0.9"}
	r := a.langGet("/?lang=zh-Hans&movie=1", "", en)
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/?movie=1" {
		t.Fatalf("switch: %d to %q, want 303 to /?movie=1", r.status, r.header.Get("Location"))
	}
	ck := r.header.Get("Set-Cookie")
	for _, w := range []string{"sf_lang=zh-Hans", "max-age=31536000", "samesite=lax", "path=/", "httponly"} {
		if !strings.Contains(strings.ToLower(ck), strings.ToLower(w)) {
			t.Errorf("Set-Cookie %q lacks %q", ck, w)
		}
	}
	withCookie := map[string]string{"Accept-Language": "en-GB,en;q=0.9", "Cookie": "sf_lang=zh-Hans"}
	if body := string(a.langGet("/", "", withCookie).body); !strings.Contains(body, `<html lang="zh-Hans">`) || !strings.Contains(body, "正在上映") {
		t.Error("the sf_lang cookie does not win over an English Accept-Language")
	}
	// back to English from a Chinese browser
	r = a.langGet("/login?lang=en", "", map[string]string{"Accept-Language": "zh-CN", "Cookie": "sf_lang=zh-Hans"})
	if r.status != http.StatusSeeOther || r.header.Get("Location") != "/login" || !strings.Contains(r.header.Get("Set-Cookie"), "sf_lang=en") {
		t.Fatalf("switch to English: %d %q %q", r.status, r.header.Get("Location"), r.header.Get("Set-Cookie"))
	}
	body := string(a.langGet("/login", "", map[string]string{"Accept-Language": "zh-CN", "Cookie": "sf_lang=en"}).body)
	if !strings.Contains(body, `<html lang="en">`) || !strings.Contains(body, ">Sign in</h1>") {
		t.Error("the English cookie does not win over a Chinese Accept-Language")
	}
	// junk: no redirect, no cookie, the header decides
	r = a.langGet("/?lang=xx", "", map[string]string{"Accept-Language": "zh-CN"})
	if r.status != 200 || r.header.Get("Set-Cookie") != "" && strings.Contains(r.header.Get("Set-Cookie"), "sf_lang") {
		t.Errorf("lang=xx: %d %q", r.status, r.header.Get("Set-Cookie"))
	}
	if !strings.Contains(string(r.body), `<html lang="zh-Hans">`) {
		t.Error("lang=xx did not fall back to Accept-Language")
	}
}

// TestI18nPages_EnglishUnchanged: without a Chinese preference the pages are English,
// with <html lang="en"> and the switcher; the console and the JSON API stay English
// even for a Chinese browser.
func TestI18nPages_EnglishUnchanged(t *testing.T) {
	a := newTestApp(t, nil)
	show, _ := a.onSaleShow(1)
	for _, hdr := range []map[string]string{nil, {"Accept-Language": "fr-FR,de;q=0.5"}} {
		body := string(a.langGet("/shows/"+show, "", hdr).body)
		for _, w := range []string{`<html lang="en">`, "Choose your seats", "Your selection", "Seat key", "SCREEN", ", available", `aria-current="true">English</a>`, `href="/shows/` + show + `?lang=zh-Hans"`} {
			if !strings.Contains(body, w) {
				t.Errorf("%v: no %q", hdr, w)
			}
		}
	}
	zh := map[string]string{"Accept-Language": "zh-CN", "Cookie": "sf_lang=zh-Hans"}
	admin := a.demoToken("admin")
	body := string(a.langGet("/admin/shows", admin, zh).body)
	if !strings.Contains(body, `<html lang="en">`) || strings.Contains(body, "lang-switch") || strings.Contains(body, "我的订单") {
		t.Error("the console is not English-only without a switcher")
	}
	r := a.do("GET", "/api/v1/shows/999999", "", nil, zh)
	if r.status != 404 || strings.Contains(string(r.body), "页面不存在") || r.header.Get("Vary") != "" && strings.Contains(r.header.Get("Vary"), "Accept-Language") {
		t.Errorf("API answer changed for a Chinese browser: %d %s (Vary %q)", r.status, r.body, r.header.Get("Vary"))
	}
}

// TestI18nPages_ChineseRefusal: a booking refused because a seat was just taken comes
// back to the show page told in Chinese, with the seat's label in it.
func TestI18nPages_ChineseRefusal(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(2)
	other, me := a.newUser(), a.newUser()
	a.orderSeats(other, show, seats[:1])
	label := a.seatLabels(show, seats[:1])[0]
	cookies := "sf_session=" + me + "; sf_lang=zh-Hans"
	p := a.langGet("/shows/"+show, "", map[string]string{"Cookie": cookies})
	token := ""
	for _, in := range regexp.MustCompile(`(?is)<input\b[^>]*>`).FindAllString(string(p.body), -1) {
		if htmlAttr(in, "name") == "_csrf" {
			token = htmlAttr(in, "value")
		}
	}
	if token == "" {
		t.Fatal("no CSRF token on the show page")
	}
	vals := url.Values{"seat": seats, "_csrf": {token}}
	req, _ := http.NewRequest("POST", a.base+"/shows/"+show+"/book", strings.NewReader(vals.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, c := range p.header.Values("Set-Cookie") {
		cookies += "; " + strings.SplitN(c, ";", 2)[0]
	}
	req.Header.Set("Cookie", cookies)
	r := a.sendReq(req)
	if r.status != http.StatusSeeOther {
		t.Fatalf("refused booking: %d", r.status)
	}
	req, _ = http.NewRequest("GET", a.base+r.header.Get("Location"), nil)
	for _, c := range r.header.Values("Set-Cookie") {
		cookies += "; " + strings.SplitN(c, ";", 2)[0]
	}
	req.Header.Set("Cookie", cookies)
	body := string(a.sendReq(req).body)
	if want := "抱歉，" + label + "刚刚被他人选走。您的其他座位仍保持选中：请核对后再次预订。"; !strings.Contains(body, want) {
		t.Errorf("no %q on the show page", want)
	}
}
