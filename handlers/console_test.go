package handlers

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/reconcile"
	"seatflow/views"
)

var (
	staffUser = &services.User{ID: 8, Name: "Sam", Email: "sam@seatflow.test", Role: services.RoleStaff}
	adminUser = &services.User{ID: 9, Name: "Ada", Email: "ada@seatflow.test", Role: services.RoleAdmin}
)

// roleUsers is fakeUsers that also knows a staff ("tok-staff") and an admin ("tok-admin").
type roleUsers struct{ fakeUsers }

// Authenticate resolves the staff and admin tokens, then the customer's.
func (f roleUsers) Authenticate(ctx context.Context, token string) (*services.User, error) {
	switch token {
	case "tok-staff":
		return staffUser, nil
	case "tok-admin":
		return adminUser, nil
	}
	return f.fakeUsers.Authenticate(ctx, token)
}

// fakeReconcile records the options of Run and answers with run 5, or with err.
type fakeReconcile struct {
	err   error
	got   *reconcile.ReconcileOptions
	stamp time.Time
}

// Run records opts and returns run 5 (done, no findings) or f.err.
func (f *fakeReconcile) Run(_ context.Context, opts reconcile.ReconcileOptions) (*reconcile.ReconcileRun, error) {
	f.got = &opts
	if f.err != nil {
		return nil, f.err
	}
	end := f.stamp.Add(time.Second)
	return &reconcile.ReconcileRun{ID: 5, Trigger: opts.Trigger, DryRun: opts.DryRun, ActorID: &opts.ActorID,
		Status: reconcile.RunDone, StartedAt: f.stamp, FinishedAt: &end}, nil
}

// Runs returns no runs.
func (f *fakeReconcile) Runs(context.Context, int) ([]*reconcile.ReconcileRun, error) {
	return nil, nil
}

// RunReport knows no run.
func (f *fakeReconcile) RunReport(_ context.Context, id int64) (*reconcile.ReconcileRun, error) {
	return nil, &services.Error{Code: services.CodeNotFound, Message: "reconciliation run not found"}
}

// adminApp is the API and the pages over fake services, with rec behind reconciliation.
func adminApp(rec *fakeReconcile) *fiber.App {
	calls := &serviceCalls{}
	d := &Deps{SharedDeps: SharedDeps{Shows: &fakeShows{m: fixtureMap(time.Now().UTC()), calls: calls}, Users: roleUsers{fakeUsers{calls}}},
		BuyerDeps: BuyerDeps{Orders: &fakeOrders{calls: calls}, Payments: fakePayments{calls}, Limiter: fakeLimiter{calls}},
		StaffDeps: StaffDeps{Reconcile: rec}}
	app := fiber.New(fiber.Config{ErrorHandler: ErrorHandler})
	app.Use(d.Authenticate)
	app.Use(d.CSRF(nil))
	d.Routes(app)
	return app
}

// TestAdminPages_OnlyAdmins: signed-out visitors go to sign in, customers and staff get
// 403, admins the page with its form.
func TestAdminPages_OnlyAdmins(t *testing.T) {
	app := adminApp(&fakeReconcile{})
	for _, path := range []string{"/admin/reconcile", "/admin/reconcile/runs/5"} {
		res, _ := do(t, app, "GET", path, nil, "")
		if res.StatusCode != fiber.StatusSeeOther || res.Header.Get("Location") != "/login?next="+path {
			t.Errorf("%s signed out: %d %q", path, res.StatusCode, res.Header.Get("Location"))
		}
		for _, tok := range []string{"tok-7", "tok-staff"} {
			if res, _ := do(t, app, "GET", path, nil, tok); res.StatusCode != fiber.StatusForbidden {
				t.Errorf("%s as %s: %d, want 403", path, tok, res.StatusCode)
			}
		}
	}
	res, body := do(t, app, "GET", "/admin/reconcile", nil, "tok-admin")
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
	form := doc.Find(`form[method="post"][action="/admin/reconcile"]`)
	if res.StatusCode != 200 || form.Find(`input[name="_csrf"]`).Length() != 1 || form.Find(`input[name="show_id"]`).Length() != 1 ||
		form.Find(`button[name="mode"][value="run"]`).Length() != 1 || form.Find(`button[name="mode"][value="dry"]`).Length() != 1 {
		t.Fatalf("admin page %d: no run form with show id, Run now and Dry run:\n%s", res.StatusCode, body)
	}
	if doc.Find(`nav.console-nav a[href="/admin/reconcile"][aria-current="page"]`).Length() != 1 {
		t.Error("the nav does not mark Reconciliation as the current page")
	}
	if res, _ := do(t, app, "GET", "/admin/reconcile/runs/77", nil, "tok-admin"); res.StatusCode != 404 {
		t.Errorf("unknown run page: %d, want 404", res.StatusCode)
	}
}

// TestAdminPages_StartRun: the form starts a manual run as the admin and redirects to
// it; a bad show id is 400 without a run; a busy lease shows the list with 409.
func TestAdminPages_StartRun(t *testing.T) {
	rec := &fakeReconcile{stamp: time.Now().UTC()}
	app := adminApp(rec)
	tok := issuedCSRF(t, app)
	post := func(form url.Values) (int, string, string) {
		res, body := do(t, app, "POST", "/admin/reconcile", withCSRF(form, tok), "tok-admin")
		return res.StatusCode, res.Header.Get("Location"), body
	}
	st, loc, _ := post(url.Values{"mode": {"dry"}, "show_id": {" 42 "}})
	if st != fiber.StatusSeeOther || loc != "/admin/reconcile/runs/5" || rec.got == nil || rec.got.Trigger != reconcile.TriggerManual ||
		!rec.got.DryRun || rec.got.ShowID != 42 || rec.got.ActorID != adminUser.ID || rec.got.Wait != reconcileWait {
		t.Fatalf("dry run: %d %q, options %+v", st, loc, rec.got)
	}
	for _, form := range []url.Values{{"mode": {"run"}, "show_id": {"abc"}}, {"mode": {"later"}}} {
		rec.got = nil
		if st, _, _ := post(form); st != fiber.StatusBadRequest || rec.got != nil {
			t.Errorf("%v: %d (ran: %v), want 400 and no run", form, st, rec.got != nil)
		}
	}
	rec.err = reconcile.ErrReconcileBusy
	st, _, body := post(url.Values{"mode": {"run"}})
	if st != fiber.StatusConflict || !strings.Contains(body, "Another reconciliation run is in progress") {
		t.Errorf("busy: %d\n%s", st, body)
	}
}

// TestAdminAPI_BusyIs409: a run that cannot get the lease is 409 CONFLICT in the
// contract's error shape.
func TestAdminAPI_BusyIs409(t *testing.T) {
	app := adminApp(&fakeReconcile{err: reconcile.ErrReconcileBusy})
	req := httptest.NewRequest("POST", "/api/v1/admin/reconcile", strings.NewReader(`{"dry_run":false}`))
	req.Header.Set("Authorization", "Bearer tok-admin")
	req.Header.Set("Content-Type", "application/json")
	res, err := app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	var body errorBody
	_ = json.NewDecoder(res.Body).Decode(&body)
	if res.StatusCode != fiber.StatusConflict || body.Error.Code != services.CodeConflict || body.Error.Message == "" {
		t.Errorf("busy: %d %+v", res.StatusCode, body)
	}
}

// TestLayout_ConsoleLinksByRole: the main nav links to the console for staff and admins
// only, and the console's nav offers reconciliation and users to admins only.
func TestLayout_ConsoleLinksByRole(t *testing.T) {
	for _, role := range []string{"", services.RoleCustomer, services.RoleStaff, services.RoleAdmin} {
		t.Run("role="+role, func(t *testing.T) {
			p := views.Page{Title: "Shows", Path: "/"}
			if role != "" {
				p.User = &services.User{ID: 1, Name: "Pat", Role: role}
			}
			doc := renderDoc(t, views.ErrorPage(views.ErrorPageProps{Page: p, Status: 404, Message: "x"}))
			staff := role == services.RoleStaff || role == services.RoleAdmin
			if n, want := doc.Find(`nav.site-nav a[href="/admin"]`).Length(), map[bool]int{true: 1, false: 0}[staff]; n != want {
				t.Errorf("%d console links, want %d", n, want)
			}
			if !staff {
				return
			}
			p.Path = "/admin"
			doc = renderDoc(t, views.AdminLayout(p))
			admin := role == services.RoleAdmin
			for _, href := range []string{"/admin/reconcile", "/admin/users"} {
				if n, want := doc.Find(`nav.console-nav a[href="`+href+`"]`).Length(), map[bool]int{true: 1, false: 0}[admin]; n != want {
					t.Errorf("%s: %d links, want %d", href, n, want)
				}
			}
			if doc.Find(`nav.console-nav a[href="/admin"][aria-current="page"]`).Length() != 1 {
				t.Error("the dashboard link is not marked current on /admin")
			}
		})
	}
}

// TestConsole_SignedOutHtmxRefreshRedirectsThePage: a console panel that refreshes
// itself (htmx) after the session ended gets HX-Redirect to the sign-in form, so the
// whole page moves there instead of the form landing inside the panel; a plain request
// gets the usual 303.
func TestConsole_SignedOutHtmxRefreshRedirectsThePage(t *testing.T) {
	app := adminApp(&fakeReconcile{})
	req := httptest.NewRequest("GET", "/admin/reconcile", nil)
	req.Header.Set("HX-Request", "true")
	res, err := app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != fiber.StatusNoContent || res.Header.Get("HX-Redirect") != "/login?next=/admin/reconcile" {
		t.Errorf("htmx: %d HX-Redirect %q", res.StatusCode, res.Header.Get("HX-Redirect"))
	}
	res, _ = do(t, app, "GET", "/admin/reconcile", nil, "")
	if res.StatusCode != fiber.StatusSeeOther || res.Header.Get("Location") != "/login?next=/admin/reconcile" {
		t.Errorf("plain: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
}

// TestConsoleShow_SingleSeatRule: a show's page names its single-seat rule, and its edit
// form offers the three values, the stored one selected, with a line on each; saving the
// form with another rule changes the rule and nothing else; a value that is not a rule
// is refused (400) with the reason and changes nothing; a form without the field keeps
// the rule.
func TestConsoleShow_SingleSeatRule(t *testing.T) {
	app, cat, _ := roomApp(services.ShowOnSale)
	cat.show.SingleSeatRule = "warn"
	res, body := do(t, app, "GET", "/admin/shows/42", nil, "tok-staff")
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
	if res.StatusCode != 200 || !strings.HasPrefix(doc.Find("#show-seat-rule").Text(), "Warn: ") {
		t.Fatalf("the show's facts do not name the rule (%d): %q", res.StatusCode, doc.Find("#show-seat-rule").Text())
	}
	form := doc.Find(`form[method="post"][action="/admin/shows/42"]`)
	var values []string
	form.Find(`select[name="single_seat_rule"] option`).Each(func(_ int, o *goquery.Selection) {
		values = append(values, o.AttrOr("value", ""))
	})
	if strings.Join(values, ",") != "off,warn,enforce" || form.Find(`option[selected]`).AttrOr("value", "") != "warn" ||
		form.Find(`#seat-rule-hint li`).Length() != 3 {
		t.Fatalf("the edit form's rule: options %v, selected %q, %d lines of explanation", values,
			form.Find(`option[selected]`).AttrOr("value", ""), form.Find(`#seat-rule-hint li`).Length())
	}
	// the form as rendered, which changes nothing else
	typed := url.Values{}
	form.Find("input").Each(func(_ int, in *goquery.Selection) {
		if name := in.AttrOr("name", ""); name != "" && name != views.CSRFField {
			typed.Set(name, in.AttrOr("value", ""))
		}
	})
	tok := issuedCSRF(t, app)
	for _, c := range []struct {
		name     string
		rule     []string // the field's value (none: no field)
		status   int
		change   *string // the rule change asked for
		called   bool
		says     string
		stored   string
		redirect string
	}{
		{"enforce", []string{"enforce"}, 303, ptr("enforce"), true, "", "enforce", "/admin/shows/42?done=saved"},
		{"not a rule", []string{"sometimes"}, 400, nil, false, views.SeatRuleProblem, "enforce", ""},
		{"empty form keeps the rule", nil, 303, nil, true, "", "enforce", "/admin/shows/42?done=saved"},
		{"off", []string{"off"}, 303, ptr("off"), true, "", "off", "/admin/shows/42?done=saved"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cat.changes = nil
			form := url.Values{}
			for k, v := range typed {
				form[k] = v
			}
			if c.rule != nil {
				form["single_seat_rule"] = c.rule
			}
			res, body := do(t, app, "POST", "/admin/shows/42", withCSRF(form, tok), "tok-staff")
			if res.StatusCode != c.status || res.Header.Get("Location") != c.redirect {
				t.Fatalf("%d %q, want %d %q\n%s", res.StatusCode, res.Header.Get("Location"), c.status, c.redirect, body)
			}
			if c.says != "" && !strings.Contains(body, c.says) {
				t.Errorf("the page lacks %q", c.says)
			}
			if got := len(cat.changes) == 1; got != c.called {
				t.Fatalf("UpdateShow called: %v, want %v", got, c.called)
			}
			if c.called {
				ch := cat.changes[0]
				if !samePtr(ch.SingleSeatRule, c.change) || ch.SaleOpensAt != nil || ch.SaleClosesAt != nil || ch.PurchaseLimit != nil ||
					len(ch.Prices) != 0 || ch.WaitingRoom != nil || ch.AdmitPerMinute != nil {
					t.Errorf("change %+v, want the rule %v and nothing else", ch, c.change)
				}
			}
			if cat.show.SingleSeatRule != c.stored {
				t.Errorf("the rule is %q, want %q", cat.show.SingleSeatRule, c.stored)
			}
		})
	}
}
