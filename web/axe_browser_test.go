package web

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/chromedp"
)

// axeScript is the path of axe-core's browser bundle, relative to this package: make
// static installs it from npm (static/package.json) into static/node_modules, outside
// the embedded static files, so it is never served to buyers.
const axeScript = "../static/node_modules/axe-core/axe.min.js"

// axeTags are the rule sets axe runs: WCAG 2.0, 2.1 and 2.2 at levels A and AA, axe's
// best practices, and its experimental rules (label-content-name-mismatch among them).
var axeTags = []string{"wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice", "experimental"}

// axeFailing lists the rules that fail a page whatever impact axe gives them, besides
// every serious or critical violation: a page without a level-one heading (moderate)
// leaves a screen reader's heading navigation without a start.
var axeFailing = map[string]bool{"page-has-heading-one": true}

var (
	axeOnce sync.Once
	axeSrc  string
	axeErr  error
)

// axeViolation is one rule axe found broken on a page: its id, impact (minor, moderate,
// serious, critical), help text and address, and the CSS selectors of the elements.
type axeViolation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	HelpURL string   `json:"helpUrl"`
	Targets []string `json:"targets"`
}

// String is the violation as a report line: rule id, impact, help text, up to five
// target selectors and the number of elements.
func (v axeViolation) String() string {
	t := v.Targets
	more := ""
	if len(t) > 5 {
		more = fmt.Sprintf(" … (%d elements)", len(v.Targets))
		t = t[:5]
	}
	return fmt.Sprintf("%s (%s): %s — %s%s", v.ID, v.Impact, v.Help, strings.Join(t, ", "), more)
}

// failing tells whether the violation fails a page: serious or critical, or one of
// axeFailing.
func (v axeViolation) failing() bool {
	return v.Impact == "serious" || v.Impact == "critical" || axeFailing[v.ID]
}

// runAxe injects axe-core into the page ctx shows and returns every violation it
// reports for axeTags. It fails the test when the script cannot be read (make static
// installs it) or axe does not run.
func runAxe(t *testing.T, ctx context.Context) []axeViolation {
	t.Helper()
	axeOnce.Do(func() {
		b, err := os.ReadFile(filepath.FromSlash(axeScript))
		axeSrc, axeErr = string(b), err
	})
	if axeErr != nil {
		t.Fatalf("axe-core is not installed (make static installs it from npm): %v", axeErr)
	}
	tags, _ := json.Marshal(axeTags)
	js := `(async () => {
		if (!window.axe) { ` + axeSrc + `
		}
		const r = await axe.run(document, {runOnly: {type: 'tag', values: ` + string(tags) + `}, resultTypes: ['violations']});
		return JSON.stringify(r.violations.map(v => ({id: v.id, impact: v.impact || '', help: v.help, helpUrl: v.helpUrl,
			targets: v.nodes.map(n => n.target.join(' '))})));
	})()`
	out, err := chromedp.Run(ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("axe.run: %v", err)
	}
	var vs []axeViolation
	if err := json.Unmarshal([]byte(out), &vs); err != nil {
		t.Fatalf("axe's answer %.200s: %v", out, err)
	}
	return vs
}

// checkAxe runs axe-core on the page ctx shows (named page in the report) and fails the
// test on each serious or critical violation, and on each rule of axeFailing, printing
// its rule id, impact, help text and the target selectors; the other violations are
// logged.
func checkAxe(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	for _, v := range runAxe(t, ctx) {
		if !v.failing() {
			t.Logf("axe on %s, not failing: %s", page, v)
			continue
		}
		t.Errorf("axe on %s: %s\n\t%s", page, v, v.HelpURL)
	}
}

// axeWidth is a viewport the pages are checked at.
type axeWidth struct {
	name          string
	width, height int64
	mobile        bool
}

// axeWidths are a desktop window and a 375 × 667 phone.
var axeWidths = []axeWidth{{"1280", 1280, 900, false}, {"375", 375, 667, true}}

// setViewport sizes the page ctx shows to w.
func setViewport(ctx context.Context, w axeWidth) error {
	_, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: w.width, Height: w.height, DeviceScaleFactor: 1, Mobile: w.mobile})
	return err
}

// axeTab opens a tab in a browser context (cookies) of its own in the browser of ctx
// (newBrowser), with a deadline of its own of d rather than ctx's: a run over every page
// takes longer than one flow. A content security policy violation on its pages fails
// the test.
func axeTab(t *testing.T, ctx context.Context, d time.Duration) context.Context {
	t.Helper()
	tctx, cancelTab := chromedp.NewContext(context.WithoutCancel(ctx), chromedp.WithNewBrowserContext())
	tctx, cancelT := context.WithTimeout(tctx, d)
	var mu sync.Mutex
	var csp []string
	if err := chromedp.Listen(tctx, func(ev any) {
		if e, ok := ev.(*cdplog.EventEntryAdded); ok && strings.Contains(e.Entry.Text, "Content Security Policy") {
			mu.Lock()
			csp = append(csp, e.Entry.URL+": "+e.Entry.Text)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(tctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancelT()
		cancelTab()
		mu.Lock()
		defer mu.Unlock()
		for _, v := range csp {
			t.Errorf("content security policy violated: %s", v)
		}
	})
	return tctx
}
