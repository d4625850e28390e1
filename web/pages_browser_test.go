package web

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/chromedp"

	"seatflow/static"
)

// newBrowser starts Debian's chromium headless; the test fails when it is missing
// (make test installs it).
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium is not installed (make test-deps installs it)")
	}
	if _, err := fs.Stat(static.FS, "vendor/htmx.min.js"); err != nil {
		t.Fatal("static/vendor/htmx.min.js is not built into the binary (make static fetches it from npm): the pages would run without htmx")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("headless", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 1000))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelC := chromedp.NewContext(actx)
	// the browser starts on bctx, which has no deadline: the first Run binds the browser's
	// life to its context, and reportPage must still reach the page after the test's
	// deadline ran out
	if err := chromedp.Do(bctx); err != nil {
		cancelC()
		cancelA()
		t.Fatal(err)
	}
	// a busy run (make test runs the browser tests beside two other test runs on two
	// cores) can take a minute over what takes twenty seconds alone
	ctx, cancelT := context.WithTimeout(bctx, 150*time.Second)
	// a page that breaks the content security policy fails the test that loaded it
	var mu sync.Mutex
	var violations []string
	err = chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*cdplog.EventEntryAdded); ok && strings.Contains(e.Entry.Text, "Content Security Policy") {
			mu.Lock()
			violations = append(violations, e.Entry.URL+": "+e.Entry.Text)
			mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			reportPage(t, bctx)
		}
		cancelT()
		cancelC()
		cancelA()
		mu.Lock()
		defer mu.Unlock()
		for _, v := range violations {
			t.Errorf("content security policy violated: %s", v)
		}
	})
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// reportPage logs where a failed test's browser was and what it showed, and saves a
// screenshot named after the test (under SEATFLOW_SCREENSHOTS), within 10 s even after
// the test's own deadline.
func reportPage(t *testing.T, bctx context.Context) {
	ctx, cancel := context.WithTimeout(bctx, 10*time.Second)
	defer cancel()
	where, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.href + '\n' + (document.body ? document.body.innerText.slice(0, 1500) : '')`))
	if err != nil {
		t.Logf("the browser at the failure: %v", err)
		return
	}
	t.Logf("the browser at the failure: %s", where)
	screenshot(t, ctx, "failed-"+strings.NewReplacer("/", "-", " ", "_").Replace(t.Name()))
}

// screenshot saves the page as PNG under SEATFLOW_SCREENSHOTS when that is set.
func screenshot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("SEATFLOW_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	_ = os.MkdirAll(dir, 0o755)
	_ = os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
}

// TestBrowser_RegisterPickSeatsPayAndSeePaid drives the first browser flow as a
// moviegoer: register, open a show, tick two seats, book, pay with the demo provider,
// approve, and see the paid order.
func TestBrowser_RegisterPickSeatsPayAndSeePaid(t *testing.T) {
	a := newTestApp(t, nil)
	show, _ := a.onSaleShow(2)
	ctx := newBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/"),
		chromedp.WaitVisible(css(`a[href="/shows/`+show+`"]`)),
	); err != nil {
		t.Fatalf("home page: %v", err)
	}
	screenshot(t, ctx, "home")
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/register"),
		chromedp.SendKeys(css(`#name`), "Ada Moviegoer"),
		chromedp.SendKeys(css(`#email`), "ada@example.test"),
		chromedp.SendKeys(css(`#password`), "popcorn-and-seats"),
		chromedp.Submit(css(`#password`)),
		chromedp.WaitVisible(css(`form[action="/logout"]`)),
		chromedp.Navigate(a.base+"/shows/"+show),
		chromedp.WaitVisible(css(`input[name="seat"]`)),
	); err != nil {
		t.Fatalf("register and open show: %v", err)
	}
	screenshot(t, ctx, "show")
	picked, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(() => {
		const f = [...document.querySelectorAll('input[name="seat"][data-kind="standard"]:not([disabled])')].slice(0, 2);
		f.forEach(x => x.click()); return f.map(x => x.value); })()`))
	if err != nil || len(picked) != 2 {
		t.Fatalf("pick seats %v: %v", picked, err)
	}
	if err := chromedp.Do(ctx,
		chromedp.Submit(css(`input[name="seat"]`)),
		chromedp.WaitVisible(css(`form[action$="/pay"]`)),
	); err != nil {
		t.Fatalf("book seats %v: %v", picked, err)
	}
	screenshot(t, ctx, "order-pending")
	if err := chromedp.Do(ctx,
		chromedp.Submit(css(`form[action$="/pay"] button`)),
		chromedp.WaitVisible(css(`form[action$="/approve"]`)),
	); err != nil {
		t.Fatalf("pay: %v", err)
	}
	screenshot(t, ctx, "demo-provider")
	if err := chromedp.Do(ctx,
		chromedp.Submit(css(`form[action$="/approve"] button`)),
		chromedp.WaitNotPresent(css(`form[action$="/approve"]`)),
		chromedp.WaitVisible(css(`main`)),
	); err != nil {
		t.Fatalf("approve: %v", err)
	}
	body, err := chromedp.Run(ctx, chromedp.Text(css(`main`)))
	if err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "order-paid")
	if !strings.Contains(strings.ToLower(body), "paid") {
		t.Errorf("order page after approval does not say paid:\n%s", body)
	}
	for _, id := range picked {
		if st := a.seatState(show, id); st != "sold" {
			t.Errorf("seat %s is %s after paying in the browser", id, st)
		}
	}
	// the seat map now shows those seats as taken to everyone
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/shows/"+show),
		chromedp.WaitVisible(css(`input[name="seat"]`)),
	); err != nil {
		t.Fatal(err)
	}
	disabled, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('input[name="seat"][value="`+picked[0]+`"][disabled]').length`))
	if err != nil || disabled != 1 {
		t.Errorf("sold seat %s not disabled on the seat map (%d, %v)", picked[0], disabled, err)
	}
	screenshot(t, ctx, "show-after")
}
