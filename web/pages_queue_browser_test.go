package web

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The buyer's waiting page of a flash on-sale (views/queue.templ, static/js/queue.js),
// in a browser: English and Chinese, on a desktop and on a 375-px phone.

// queueView is one way of looking at the waiting page: a language and a screen.
type queueView struct {
	name  string // in screenshot names: en-desktop, zh-phone, ...
	zh    bool
	phone bool
}

var queueViews = []queueView{
	{"en-desktop", false, false},
	{"en-phone", false, true},
	{"zh-desktop", true, false},
	{"zh-phone", true, true},
}

// queueWords are the sentences the tests expect, per language.
type queueWords struct {
	join, joinAgain, position1, position2, waiting1, waiting2, waiting3, minutes, keepOpen,
	progress, expired, cancelled, otherTimes, opensAt, random string
}

func wordsOf(zh bool) queueWords {
	if zh {
		return queueWords{join: "加入排队", joinAgain: "重新排队", position1: "您在队列中排第1位。", position2: "您在队列中排第2位。",
			waiting1: "共1人正在排队。", waiting2: "共2人正在排队。", waiting3: "共3人正在排队。", minutes: "分钟",
			keepOpen: "请保持此页面打开——2分钟内回来，您的位置不会丢失。", progress: "排队进度",
			expired: "您的排队位置已失效。", cancelled: "本场次已取消。", otherTimes: "的其他场次",
			opensAt: "开售。", random: "随机排序"}
	}
	return queueWords{join: "Join the queue", joinAgain: "Join the queue again", position1: "You are number 1 in the queue.",
		position2: "You are number 2 in the queue.", waiting1: "1 person is waiting.", waiting2: "2 people are waiting.",
		waiting3: "3 people are waiting.", minutes: "minutes",
		keepOpen: "Keep this tab open — you will not lose your place if you come back within 2 minutes.",
		progress: "Your progress in the queue", expired: "Your place has expired.", cancelled: "This show was cancelled.",
		otherTimes: "Other showtimes of ", opensAt: "The sale opens at ", random: "random order — arriving earlier gives no advantage"}
}

// queueCall sends one JSON API request without the OpenAPI check of a.do:
// handlers/openapi.json does not describe the waiting room's endpoints and fields.
func (a *testApp) queueCall(method, path, token string, body any) apiResp {
	a.t.Helper()
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	req, err := http.NewRequest(method, a.base+path, bytes.NewReader(raw))
	if err != nil {
		a.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := noRedirect.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return apiResp{status: res.StatusCode, body: b, header: res.Header}
}

// queueShows returns n different shows of the next days, with many seats free, that
// start more than 2 hours from now: on sale now (onSale), else whose sale opens later.
func (a *testApp) queueShows(n int, onSale bool) []string {
	a.t.Helper()
	now := a.clock.Now()
	var out []string
	for d := 0; d < 7 && len(out) < n; d++ {
		day := now.In(a.Cfg.Location()).AddDate(0, 0, d).Format(time.DateOnly)
		var v struct {
			Shows []struct {
				ID, Status  string
				SaleOpensAt string `json:"sale_opens_at"`
				StartsAt    string `json:"starts_at"`
				SeatsLeft   int    `json:"seats_left"`
			}
		}
		json.Unmarshal(a.do("GET", "/api/v1/shows?date="+day, "", nil, nil).body, &v)
		for _, s := range v.Shows {
			opens, _ := time.Parse(time.RFC3339, s.SaleOpensAt)
			starts, _ := time.Parse(time.RFC3339, s.StartsAt)
			if len(out) == n || s.SeatsLeft < 20 || !starts.After(now.Add(2*time.Hour)) {
				continue
			}
			if onSale && s.Status == "on_sale" && opens.Before(now) || !onSale && opens.After(now.Add(time.Hour)) && s.Status != "cancelled" {
				out = append(out, s.ID)
			}
		}
	}
	if len(out) < n {
		a.t.Fatalf("only %d shows for the waiting room (on sale %v), want %d", len(out), onSale, n)
	}
	return out
}

// setRoom turns the show's waiting room on at pace buyers a minute, as staff.
func (a *testApp) setRoom(staff, show string, pace int) {
	a.t.Helper()
	r := a.queueCall("PATCH", "/api/v1/admin/shows/"+show, staff, map[string]any{"waiting_room": true, "admit_per_minute": pace})
	if r.status != 200 {
		a.t.Fatalf("waiting room of show %s at %d a minute: %d %s", show, pace, r.status, r.body)
	}
}

// joinQueue puts a new buyer in the show's queue through the API and returns their
// token and entry; it waits out the catalog's cache of the show (a second) after the
// room was turned on.
func (a *testApp) joinQueue(show string) (string, map[string]any) {
	a.t.Helper()
	token := a.newUser()
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		r := a.queueCall("POST", "/api/v1/shows/"+show+"/queue", token, nil)
		if r.status == 200 {
			return token, r.json(a.t)
		}
		if r.status != 409 || time.Now().After(end) {
			a.t.Fatalf("join the queue of show %s: %d %s", show, r.status, r.body)
		}
	}
}

// queueBrowser is a browser in v's language and screen, with a new buyer signed in.
// Without EventSource (noStream) the page has to poll.
func queueBrowser(t *testing.T, a *testApp, v queueView, noStream bool) context.Context {
	t.Helper()
	ctx := newBrowser(t)
	if v.zh {
		if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{
			Headers: network.Headers{"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.5"}}); err != nil {
			t.Fatal(err)
		}
	}
	if v.phone {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile, chromedp.EmulateTouch)); err != nil {
			t.Fatal(err)
		}
	}
	if noStream {
		if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `try { delete window.EventSource; } catch (e) {} window.EventSource = undefined;`}); err != nil {
			t.Fatal(err)
		}
	}
	uxRegister(t, ctx, a)
	return ctx
}

// openAndJoin opens the show page, lands on its waiting page, and joins the queue by
// keyboard (focus on the button, Enter); it returns when the page shows sel.
func openAndJoin(t *testing.T, ctx context.Context, a *testApp, v queueView, show, sel string) {
	t.Helper()
	w := wordsOf(v.zh)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/shows/"+show),
		chromedp.WaitVisible(chromedp.CSS(`button.queue-join`)),
	); err != nil {
		t.Fatalf("open the show page: %v", err)
	}
	if p := evalJS[string](t, ctx, `location.pathname`); p != "/shows/"+show+"/queue" {
		t.Fatalf("the show page sent the buyer to %s, want its waiting page", p)
	}
	if b := evalJS[string](t, ctx, `document.querySelector('button.queue-join').textContent`); b != w.join {
		t.Errorf("join button %q, want %q", b, w.join)
	}
	checkQueueLayout(t, ctx, v)
	screenshot(t, ctx, "queue-"+v.name+"-join")
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(`button.queue-join`))); err != nil {
		t.Fatal(err)
	}
	if f := evalJS[bool](t, ctx, `document.activeElement === document.querySelector('button.queue-join')`); !f {
		t.Fatal("the join button does not take the focus")
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS(sel))); err != nil {
		t.Fatalf("Enter on the join button: %v", err)
	}
}

// checkQueueLayout: the page is no wider than the screen (375 px on the phone) and has
// no element cut at the right edge.
func checkQueueLayout(t *testing.T, ctx context.Context, v queueView) {
	t.Helper()
	if !v.phone {
		return
	}
	if w := evalJS[int](t, ctx, `document.documentElement.scrollWidth`); w > 375 {
		t.Errorf("the waiting page is %d px wide on a 375-px screen", w)
	}
	if r := evalJS[float64](t, ctx, `Math.max(...[...document.querySelectorAll('.queue *')].map(e => e.getBoundingClientRect().right))`); r > 375 {
		t.Errorf("something on the waiting page reaches %.0f px on a 375-px screen", r)
	}
}

// queueText is the text of the first element sel matches, trimmed ("" when none).
func queueText(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return evalJS[string](t, ctx, `(() => { const e = document.querySelector('`+sel+`'); return e ? e.textContent.trim().replace(/\s+/g, ' ') : ''; })()`)
}

// TestBrowser_QueueJoinAndAdmitted: a buyer opens a show whose waiting room is on, is
// sent to its waiting page, joins by keyboard and reads their place (first in line:
// one buyer before them was admitted at once, and the pace allows one a minute); staff
// then raise the pace, and the page moves to the seat map on its own. Admitted but
// unused for longer than an admission lasts, the place reads expired and the buyer
// joins again. In English on a desktop, and in Chinese on a phone without EventSource
// (the page polls).
func TestBrowser_QueueJoinAndAdmitted(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	views := []queueView{queueViews[0], queueViews[3]} // the other two screens: TestBrowser_QueueSecondInLine
	shows := a.queueShows(len(views), true)
	for i, v := range views {
		t.Run(v.name, func(t *testing.T) {
			show := shows[i]
			w := wordsOf(v.zh)
			a.setRoom(staff, show, 1)
			// at one a minute the buyer would be admitted a minute on, which a busy run
			// can take before the page is read: the room's clock stands still meanwhile
			a.clock.Freeze()
			defer a.clock.Thaw()
			if _, e := a.joinQueue(show); e["status"] != "admitted" {
				t.Fatalf("the first buyer of an empty room: %v, want admitted", e)
			}
			ctx := queueBrowser(t, a, v, v.zh && v.phone)
			openAndJoin(t, ctx, a, v, show, `[data-queue-number]`)
			if n := queueText(t, ctx, `[data-queue-number]`); n != "1" {
				t.Errorf("place %q, want 1", n)
			}
			if s := queueText(t, ctx, `[data-queue-live]`); s != w.position1 {
				t.Errorf("live region %q, want %q", s, w.position1)
			}
			if s := queueText(t, ctx, `[data-queue-waiting]`); s != w.waiting1 {
				t.Errorf("waiting %q, want %q", s, w.waiting1)
			}
			if s := queueText(t, ctx, `.queue-keep`); s != w.keepOpen {
				t.Errorf("keep-open note %q", s)
			}
			if s := queueText(t, ctx, `[data-queue-wait]`); !strings.Contains(s, "–") {
				t.Errorf("estimated wait %q is not a range", s)
			}
			checkQueueLayout(t, ctx, v)
			screenshot(t, ctx, "queue-"+v.name+"-waiting")

			start := time.Now()
			a.clock.Thaw()
			a.setRoom(staff, show, 600)
			wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			if err := chromedp.Do(wctx, chromedp.WaitVisible(chromedp.CSS(`input[name="seat"]`))); err != nil {
				t.Fatalf("not on the seat map %v after the pace went up: %v (at %s)", time.Since(start), err,
					evalJS[string](t, ctx, `location.pathname + ' ' + document.body.innerText.slice(0, 300)`))
			}
			if p := evalJS[string](t, ctx, `location.pathname`); p != "/shows/"+show {
				t.Errorf("admitted, the browser is at %s, want the show page", p)
			}
			t.Logf("on the seat map %v after the pace went up", time.Since(start).Round(100*time.Millisecond))
			viewportShot(t, ctx, "queue-"+v.name+"-seatmap")

			// unused for longer than an admission lasts: expired; joining again (an empty
			// room at 600 a minute) lets the buyer in at once
			a.clock.Set(11 * time.Minute)
			defer a.clock.Set(0)
			// (the show page checks the admission cookie by the wall clock, which the test
			// cannot move: the buyer opens the waiting page, which reads the room)
			ectx, ecancel := context.WithTimeout(ctx, 15*time.Second)
			defer ecancel()
			if err := chromedp.Do(ectx,
				chromedp.Navigate(a.base+"/shows/"+show+"/queue"),
				chromedp.WaitVisible(chromedp.CSS(`.queue-state-expired button.queue-join`)),
			); err != nil {
				t.Fatalf("the waiting page after the admission ended: %v (at %s)", err,
					evalJS[string](t, ctx, `location.pathname + ' ' + document.body.innerText.slice(0, 400)`))
			}
			if s := queueText(t, ctx, `[data-queue-live]`); s != w.expired {
				t.Errorf("expired page says %q, want %q", s, w.expired)
			}
			if b := queueText(t, ctx, `button.queue-join`); b != w.joinAgain {
				t.Errorf("join-again button %q", b)
			}
			checkQueueLayout(t, ctx, v)
			screenshot(t, ctx, "queue-"+v.name+"-expired")
			if err := chromedp.Do(ctx,
				chromedp.Focus(chromedp.CSS(`button.queue-join`)),
				chromedp.KeyEvent(kb.Enter),
				chromedp.WaitVisible(chromedp.CSS(`input[name="seat"]`)),
			); err != nil {
				t.Fatalf("join again: %v", err)
			}
		})
	}
}

// TestBrowser_QueueSecondInLine: one buyer was admitted and another waits, at one a
// minute; the browser's buyer joins and reads that they are second, how many wait,
// the wait in minutes, a labelled progress bar and the same sentence in the live
// region. Someone joining behind them shows up without a reload; when staff cancel
// the show the page says so and links to the movie's other showtimes. In English on a
// phone and in Chinese on a desktop.
func TestBrowser_QueueSecondInLine(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	views := []queueView{queueViews[1], queueViews[2]} // the other two: TestBrowser_QueueJoinAndAdmitted
	shows := a.queueShows(len(views), true)
	for i, v := range views {
		t.Run(v.name, func(t *testing.T) {
			show := shows[i]
			w := wordsOf(v.zh)
			a.setRoom(staff, show, 1)
			// the one ahead would be admitted a minute on at this pace: a busy run can
			// take that long, so the room's clock stands still for this test
			a.clock.Freeze()
			defer a.clock.Thaw()
			if _, e := a.joinQueue(show); e["status"] != "admitted" {
				t.Fatalf("the first buyer of an empty room: %v, want admitted", e)
			}
			ahead, e := a.joinQueue(show)
			if e["status"] != "waiting" || e["position"] != 1.0 {
				t.Fatalf("the second buyer: %v, want waiting at 1", e)
			}
			ctx := queueBrowser(t, a, v, false)
			openAndJoin(t, ctx, a, v, show, `[data-queue-number]`)
			if n := queueText(t, ctx, `[data-queue-number]`); n != "2" {
				t.Errorf("place %q, want 2", n)
			}
			live := evalJS[map[string]string](t, ctx, `(() => { const e = document.querySelector('[data-queue-live]');
				return e ? {text: e.textContent.trim(), live: e.getAttribute('aria-live'), hidden: String(e.closest('[aria-hidden="true"]') !== null)} : {}; })()`)
			if live["text"] != w.position2 || live["live"] != "polite" || live["hidden"] != "false" {
				t.Errorf("live region %v, want %q, polite and not hidden from screen readers", live, w.position2)
			}
			if s := queueText(t, ctx, `[data-queue-waiting]`); s != w.waiting2 {
				t.Errorf("waiting %q, want %q", s, w.waiting2)
			}
			if s := queueText(t, ctx, `[data-queue-wait]`); !strings.Contains(s, "–") || !strings.Contains(s, w.minutes) {
				t.Errorf("estimated wait %q, want a range in minutes", s)
			}
			bar := evalJS[map[string]string](t, ctx, `(() => { const p = document.querySelector('progress');
				return {label: p.labels.length ? p.labels[0].textContent : '', max: String(p.max), value: String(p.value)}; })()`)
			if bar["label"] != w.progress || bar["max"] != "100" || bar["value"] != "0" {
				t.Errorf("progress bar %v, want labelled %q, 0 of 100", bar, w.progress)
			}
			checkQueueLayout(t, ctx, v)
			screenshot(t, ctx, "queue-"+v.name+"-second")

			// a buyer joining behind: the count follows without a reload (the stream reads
			// the entry every 5 s)
			evalJS[bool](t, ctx, `window.__sameQueuePage = true`)
			a.joinQueue(show)
			got := ""
			for end := time.Now().Add(30 * time.Second); time.Now().Before(end) && got != w.waiting3; time.Sleep(200 * time.Millisecond) {
				got = queueText(t, ctx, `[data-queue-waiting]`)
			}
			if got != w.waiting3 || !evalJS[bool](t, ctx, `window.__sameQueuePage === true`) {
				t.Errorf("after a third buyer joined, the page says %q (want %q without a reload)", got, w.waiting3)
			}
			if s := queueText(t, ctx, `[data-queue-live]`); s != w.position2 {
				t.Errorf("live region %q after someone joined behind, want %q", s, w.position2)
			}
			// the one ahead is still waiting: reading keeps their place
			if r := a.queueCall("GET", "/api/v1/shows/"+show+"/queue", ahead, nil); r.status != 200 {
				t.Errorf("the buyer ahead: %d %s", r.status, r.body)
			}

			// staff cancel the show: the room closes and the page says why
			if r := a.queueCall("POST", "/api/v1/admin/shows/"+show+"/cancel", staff, map[string]string{"reason": "projector failure"}); r.status != 200 {
				t.Fatalf("cancel the show: %d %s", r.status, r.body)
			}
			wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			if err := chromedp.Do(wctx, chromedp.WaitVisible(chromedp.CSS(`.queue-state-closed .queue-reason`))); err != nil {
				t.Fatalf("the waiting page did not turn closed: %v", err)
			}
			if s := queueText(t, ctx, `.queue-reason`); s != w.cancelled {
				t.Errorf("closed because %q, want %q", s, w.cancelled)
			}
			link := evalJS[map[string]string](t, ctx, `(() => { const a = document.querySelector('.queue-state-closed a.button');
				return a ? {href: a.getAttribute('href'), text: a.textContent} : {}; })()`)
			if !strings.HasPrefix(link["href"], "/movies/") || !strings.Contains(link["text"], w.otherTimes) {
				t.Errorf("other showtimes link %v", link)
			}
			checkQueueLayout(t, ctx, v)
			screenshot(t, ctx, "queue-"+v.name+"-closed")
		})
	}
}

// TestBrowser_QueueBeforeSaleOpens: joining before the sale opens gives no position
// yet; the page says when the sale opens and that everyone there then gets a place in
// a random order, and stays as it is while the buyer waits.
func TestBrowser_QueueBeforeSaleOpens(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	views := []queueView{queueViews[3]} // the Chinese phone; English is read by the other tests
	shows := a.queueShows(len(views), false)
	for i, v := range views {
		t.Run(v.name, func(t *testing.T) {
			show := shows[i]
			w := wordsOf(v.zh)
			a.setRoom(staff, show, 60)
			a.joinQueue(show)
			ctx := queueBrowser(t, a, v, false)
			openAndJoin(t, ctx, a, v, show, `.queue-state-pre [data-queue-live]`)
			fair := queueText(t, ctx, `.queue-fair`)
			if !strings.Contains(fair, w.opensAt) || !strings.Contains(fair, w.random) {
				t.Errorf("the opening's sentence %q", fair)
			}
			if n := evalJS[int](t, ctx, `document.querySelectorAll('[data-queue-number], progress').length`); n != 0 {
				t.Errorf("%d position or progress elements before the opening", n)
			}
			if s := queueText(t, ctx, `[data-queue-waiting]`); s != w.waiting2 {
				t.Errorf("waiting %q, want %q", s, w.waiting2)
			}
			if s := queueText(t, ctx, `.queue-keep`); s != w.keepOpen {
				t.Errorf("keep-open note %q", s)
			}
			checkQueueLayout(t, ctx, v)
			screenshot(t, ctx, "queue-"+v.name+"-before-sale")
			// the stream's first entries change nothing: no reload
			evalJS[bool](t, ctx, `window.__sameQueuePage = true`)
			time.Sleep(6 * time.Second)
			if !evalJS[bool](t, ctx, `window.__sameQueuePage === true`) {
				t.Error("the waiting page reloaded before the sale opened")
			}
		})
	}
}
