package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// TestBrowserI18n_ChineseBuyerBooksSeats: a browser asking for Chinese registers,
// picks seats and reads the selection summary and its announcement in Chinese, books,
// sees the order page's deadline and countdown in Chinese, pays and reads the paid
// order and its ticket; the switcher then turns the same page English.
func TestBrowserI18n_ChineseBuyerBooksSeats(t *testing.T) {
	a := newTestApp(t, nil)
	show, _ := a.onSaleShow(3)
	ctx := newBrowser(t)
	email := fmt.Sprintf("zh%d-%d@example.test", time.Now().UnixNano(), userSeq.Add(1))
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{
		Headers: network.Headers{"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.5"}}); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/register"),
		chromedp.WaitVisible(chromedp.CSS(`#name`)),
	); err != nil {
		t.Fatal(err)
	}
	if lang := evalJS[string](t, ctx, `document.documentElement.lang`); lang != "zh-Hans" {
		t.Fatalf(`<html lang=%q>, want "zh-Hans"`, lang)
	}
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(chromedp.CSS(`#name`), "李雷"),
		chromedp.SendKeys(chromedp.CSS(`#email`), email),
		chromedp.SendKeys(chromedp.CSS(`#password`), "popcorn-and-seats"),
		chromedp.Submit(chromedp.CSS(`#password`)),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/logout"]`)),
		chromedp.Navigate(a.base+"/"),
		chromedp.WaitVisible(chromedp.CSS(`.date-strip`)),
	); err != nil {
		t.Fatal(err)
	}
	if h := evalJS[string](t, ctx, `document.querySelector('h1').textContent + "|" + document.querySelector('.day-heading').textContent`); !strings.HasPrefix(h, "正在上映|今天 · ") {
		t.Errorf("home heading | first day = %q", h)
	}
	viewportShot(t, ctx, "i18n-zh-home")
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/shows/"+show),
		chromedp.WaitVisible(chromedp.CSS(`#selection-summary`)),
	); err != nil {
		t.Fatal(err)
	}
	picked := evalJS[[]string](t, ctx, `(() => {
		const f = [...document.querySelectorAll('input[name="seat"]:not([disabled])[data-kind="standard"]')].slice(0, 2);
		f.forEach(x => x.click()); return f.map(x => x.dataset.label); })()`)
	if len(picked) != 2 {
		t.Fatalf("picked %v", picked)
	}
	limit := evalJS[string](t, ctx, `document.querySelector('[data-summary-limit]').textContent`)
	if limit != "已选2个座位 · 限购4个，还可选2个。" {
		t.Errorf("summary limit = %q", limit)
	}
	total := evalJS[string](t, ctx, `document.querySelector('[data-summary-total]').textContent`)
	if live := liveText(t, ctx); !strings.HasPrefix(live, "已选择"+picked[1]+"。") || !strings.Contains(live, "共2个座位，合计"+total+"。") {
		t.Errorf("live region = %q (total %q)", live, total)
	}
	head := evalJS[string](t, ctx, `document.querySelector('#summary-heading').textContent + "|" + document.querySelector('.seats input:not([disabled])').getAttribute('aria-label')`)
	if !strings.HasPrefix(head, "已选座位|") || !strings.Contains(head, "排") || !strings.Contains(head, "座，") {
		t.Errorf("summary heading | a seat's name = %q", head)
	}
	screenshot(t, ctx, "i18n-zh-show-summary")
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`.seat-form button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-countdown-clock]`)),
	); err != nil {
		t.Fatalf("book: %v", err)
	}
	order := evalJS[string](t, ctx, `document.querySelector('.countdown').textContent + "|" + document.querySelector('.deadline').textContent + "|" + document.querySelector('[data-order-status]').textContent`)
	parts := strings.Split(order, "|")
	if len(parts) != 3 || !strings.HasPrefix(parts[0], "剩余付款时间：") || !strings.HasPrefix(parts[1], "请在") || !strings.Contains(parts[1], "分钟后）") || parts[2] != "待付款" {
		t.Errorf("order page countdown | deadline | status = %q", order)
	}
	screenshot(t, ctx, "i18n-zh-order-pending")
	// pay with the demo provider, in Chinese too, and read the paid order and its ticket
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`form[action$="/pay"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`form[action$="/approve"]`)),
	); err != nil {
		t.Fatalf("pay: %v", err)
	}
	if h := evalJS[string](t, ctx, `document.querySelector('#provider-title').textContent`); !strings.HasPrefix(h, "支付 ¥") {
		t.Errorf("demo provider heading = %q", h)
	}
	viewportShot(t, ctx, "i18n-zh-demo-pay")
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`form[action$="/approve"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`.ticket`)),
	); err != nil {
		t.Fatalf("approve: %v", err)
	}
	paid := evalJS[string](t, ctx, `document.querySelector('.success').textContent.trim() + "|" + document.querySelector('#ticket-title').textContent`)
	if !strings.HasPrefix(paid, "已于") || !strings.Contains(paid, "付款。祝您观影愉快！|电影票") {
		t.Errorf("paid order | ticket = %q", paid)
	}
	screenshot(t, ctx, "i18n-zh-order-paid")
	// the switcher: English for this page and the next ones
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`.lang-switch a[hreflang="en"]`)),
		chromedp.WaitVisible(chromedp.CSS(`html[lang="en"] .ticket`)),
	); err != nil {
		t.Fatalf("switch to English: %v", err)
	}
	if s := evalJS[string](t, ctx, `document.querySelector('.success').textContent.trim() + "|" + location.search`); !strings.HasPrefix(s, "Paid at ") || !strings.Contains(s, "Enjoy the show!|?payment=") || strings.Contains(s, "lang=") {
		t.Errorf("after switching: %q (want the English order at its address, ?payment= kept, without lang)", s)
	}
}
