package web

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// TestPasswordReset_BrowserForgotResetSignIn drives the reset as a moviegoer: from the
// sign-in page's "Forgot your password?" to the form, the link read from the outbox,
// the new password typed twice, the sign-in page's notice, and signing in with the new
// password. It then shows both forms at 375 px and in Chinese (screenshots), none wider
// than the screen.
func TestPasswordReset_BrowserForgotResetSignIn(t *testing.T) {
	a := newTestApp(t, nil)
	email := a.resetUser(t)
	ctx := newBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/login"),
		chromedp.WaitVisible(css(`#forgot-link`)),
		chromedp.Click(css(`#forgot-link`)),
		chromedp.WaitVisible(css(`form[action="/password/forgot"] #email`)),
	); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "reset-flow-forgot")
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(css(`#email`), strings.ToUpper(email)),
		chromedp.Submit(css(`#email`)),
		chromedp.WaitVisible(css(`#reset-sent`)),
	); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "reset-flow-sent")
	links := a.resetMails(email)
	if len(links) != 1 {
		t.Fatalf("%d reset e-mails for %s, want 1", len(links), email)
	}
	path := "/password/reset?token=" + resetToken(t, links[0])
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+path),
		chromedp.WaitVisible(css(`#password2`)),
	); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "reset-flow-form")
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(css(`#password`), "brand-new-pass"),
		chromedp.SendKeys(css(`#password2`), "brand-new-pass"),
		chromedp.Submit(css(`#password2`)),
		chromedp.WaitVisible(css(`.auth .success`)),
	); err != nil {
		t.Fatal(err)
	}
	if s := evalJS[string](t, ctx, `document.querySelector('.auth .success').textContent + "|" + location.pathname`); !strings.HasPrefix(s, "Your password has been changed") || !strings.HasSuffix(s, "|/login") {
		t.Errorf("after the reset: %q, want the notice on /login", s)
	}
	screenshot(t, ctx, "reset-flow-done")
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(css(`#email`), email),
		chromedp.SendKeys(css(`#password`), "brand-new-pass"),
		chromedp.Submit(css(`#password`)),
		chromedp.WaitVisible(css(`form[action="/logout"]`)),
	); err != nil {
		t.Fatalf("signing in with the new password: %v", err)
	}

	// the two forms at 375 px and in Chinese, over a fresh link
	path = "/password/reset?token=" + resetToken(t, a.requestLink(t, email))
	shots := func(lang string) {
		for _, w := range []struct {
			name string
			w, h int64
		}{{"desktop", 1280, 900}, {"phone", 375, 812}} {
			vp := chromedp.EmulateViewport(w.w, w.h)
			if w.name == "phone" {
				vp = chromedp.EmulateViewport(w.w, w.h, chromedp.EmulateMobile, chromedp.EmulateTouch)
			}
			if err := chromedp.Do(ctx, vp); err != nil {
				t.Fatal(err)
			}
			for _, p := range []struct{ name, path, wait string }{
				{"forgot", "/password/forgot", `form[action="/password/forgot"] #email`},
				{"form", path, `#password2`},
			} {
				if err := chromedp.Do(ctx, chromedp.Navigate(a.base+p.path), chromedp.WaitVisible(css(p.wait))); err != nil {
					t.Fatalf("%s %s %s: %v", lang, w.name, p.name, err)
				}
				if got := evalJS[string](t, ctx, `document.documentElement.lang`); got != lang {
					t.Errorf("%s: <html lang=%q>, want %q", p.path, got, lang)
				}
				if w.name == "phone" {
					if sw := evalJS[int](t, ctx, `document.documentElement.scrollWidth`); sw > 375 {
						t.Errorf("%s %s is %d px wide on a 375-px screen", lang, p.name, sw)
					}
				}
				screenshot(t, ctx, fmt.Sprintf("reset-%s-%s-%s", p.name, lang, w.name))
			}
		}
	}
	shots("en")
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{
		Headers: network.Headers{"Accept-Language": "zh-CN,zh;q=0.9"}}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, // signed out, so the sign-in page stays
		chromedp.EmulateViewport(1280, 900), chromedp.Navigate(a.base+"/"), chromedp.Submit(css(`form[action="/logout"] button`)), chromedp.WaitVisible(css(`a[href^="/login"]`)),
		chromedp.Navigate(a.base+"/login"), chromedp.WaitVisible(css(`#forgot-link`))); err != nil {
		t.Fatal(err)
	}
	if s := evalJS[string](t, ctx, `document.querySelector('#forgot-link').textContent`); s != "忘记密码？" {
		t.Errorf("the Chinese sign-in page's link: %q", s)
	}
	shots("zh-Hans")
}
