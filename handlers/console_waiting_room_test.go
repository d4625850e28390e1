package handlers

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/gofiber/fiber/v2"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/waitingroom"
)

// roomCatalog is the catalog of one show for the console's show page: it reads the
// show and applies UpdateShow's waiting room change (or refuses it with err). The
// methods the page does not call are left to the embedded interface (nil).
type roomCatalog struct {
	CatalogService
	mu      sync.Mutex
	show    services.Show
	err     error
	changes []catalog.ShowChange
}

func (f *roomCatalog) Show(_ context.Context, id int64) (*services.Show, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id != f.show.ID {
		return nil, &services.Error{Code: services.CodeNotFound, Message: "show not found"}
	}
	s := f.show
	return &s, nil
}

func (f *roomCatalog) SeatCounts(context.Context, []*services.Show) (map[int64]catalog.SeatCounts, error) {
	return map[int64]catalog.SeatCounts{f.show.ID: {Free: 10}}, nil
}

func (f *roomCatalog) UpdateShow(_ context.Context, _, id int64, ch catalog.ShowChange) (*services.Show, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.changes = append(f.changes, ch)
	if f.err != nil {
		return nil, f.err
	}
	if ch.WaitingRoom != nil {
		f.show.WaitingRoom = *ch.WaitingRoom
	}
	if ch.AdmitPerMinute != nil {
		f.show.AdmitPerMinute = *ch.AdmitPerMinute
	}
	if ch.SingleSeatRule != nil {
		f.show.SingleSeatRule = *ch.SingleSeatRule
	}
	s := f.show
	return &s, nil
}

// roomStats answers Stats with stats or err; Join and Read are left to the embedded
// interface (nil).
type roomStats struct {
	WaitingRoomService
	stats *waitingroom.Stats
	err   error
}

func (f *roomStats) Stats(_ context.Context, showID int64) (*waitingroom.Stats, error) {
	if showID != 42 {
		return nil, &services.Error{Code: services.CodeNotFound, Message: "show not found"}
	}
	return f.stats, f.err
}

// roomApp is the app over show 42 (on sale, its room off at 600 a minute).
func roomApp(status string) (*fiber.App, *roomCatalog, *roomStats) {
	now := time.Now().UTC()
	cat := &roomCatalog{show: services.Show{ID: 42, HallID: 1, Status: status, StoredStatus: status, PurchaseLimit: 4, Currency: "CNY",
		StartsAt: now.Add(48 * time.Hour), SaleOpensAt: now.Add(-time.Hour), SaleClosesAt: now.Add(47 * time.Hour),
		Movie: services.Movie{Title: "Copper Sparrow", RuntimeMin: 131}, HallName: "Hall 1", AdmitPerMinute: 600,
		Zones: []services.Zone{{Code: "standard", Name: "Standard", PriceMinor: 4500}}}}
	rooms := &roomStats{stats: &waitingroom.Stats{Pace: 600}}
	calls := &serviceCalls{}
	d := &Deps{SharedDeps: SharedDeps{Shows: &fakeShows{m: fixtureMap(now), calls: calls}, Users: roleUsers{fakeUsers{calls}}, Rooms: rooms},
		BuyerDeps: BuyerDeps{Orders: &fakeOrders{calls: calls}, Payments: fakePayments{calls}, Limiter: fakeLimiter{calls}},
		StaffDeps: StaffDeps{Catalog: cat}}
	app := fiber.New(fiber.Config{ErrorHandler: ErrorHandler})
	app.Use(d.Authenticate)
	app.Use(d.CSRF(nil))
	d.Routes(app)
	return app, cat, rooms
}

// TestConsoleWaitingRoom_Panel: the show's page shows the room's figures (each reason
// a room closes for in words, the show's status when the room recorded none) with
// their htmx refresh, which answers the same figures alone, and its form with the CSRF
// token; a room that cannot be read says so and the page still shows; a cancelled
// show has the figures without the form or the refresh.
func TestConsoleWaitingRoom_Panel(t *testing.T) {
	cases := []struct {
		name      string
		status    string
		tweak     func(*services.Show)
		stats     *waitingroom.Stats
		err       error
		says      []string
		form, hx  bool
		figuresOK bool
	}{
		{"off", services.ShowOnSale, nil, &waitingroom.Stats{Pace: 600}, nil,
			[]string{"off", "600 buyers a minute", "No"}, true, true, true},
		{"on and busy", services.ShowOnSale, nil, &waitingroom.Stats{On: true, Pace: 1, Waiting: 12345, AdmittedLastMin: 1,
			AdmittedTotal: 2000, AbandonedTotal: 3}, nil, []string{"on", "1 buyer a minute", "12,345", "2,000"}, true, true, true},
		{"sold out", services.ShowOnSale, nil, &waitingroom.Stats{On: true, Pace: 600, Closed: waitingroom.ClosedSoldOut}, nil,
			[]string{"Yes: sold out"}, true, true, true},
		{"sale closed", services.ShowOnSale, nil, &waitingroom.Stats{On: true, Pace: 600, Closed: waitingroom.ClosedSale}, nil,
			[]string{"Yes: the sale closed"}, true, true, true},
		{"sale window over, nothing recorded", services.ShowOnSale, func(s *services.Show) { s.SaleClosesAt = time.Now().Add(-time.Minute) },
			&waitingroom.Stats{On: true, Pace: 600}, nil, []string{"Yes: the sale closed"}, true, true, true},
		{"cancelled", services.ShowCancelled, nil, &waitingroom.Stats{On: true, Pace: 600, Closed: waitingroom.ClosedCancelled}, nil,
			[]string{"Yes: the show was cancelled"}, false, false, true},
		{"cancelled, nothing recorded", services.ShowCancelled, nil, &waitingroom.Stats{Pace: 600}, nil,
			[]string{"off", "Yes: the show was cancelled"}, false, false, true},
		{"unreadable", services.ShowOnSale, nil, nil, &services.Error{Code: services.CodeUnavailable, Message: "the waiting room is unavailable"},
			[]string{"could not be read"}, true, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			app, cat, rooms := roomApp(c.status)
			rooms.stats, rooms.err = c.stats, c.err
			if c.tweak != nil {
				c.tweak(&cat.show)
			}
			res, body := do(t, app, "GET", "/admin/shows/42", nil, "tok-staff")
			if res.StatusCode != 200 {
				t.Fatalf("status %d", res.StatusCode)
			}
			doc, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
			panel := doc.Find(`section#waiting-room`)
			figures := panel.Find(`#waiting-room-figures`)
			if panel.Length() != 1 || figures.Length() != 1 || !strings.Contains(panel.Find("h2").Text(), "Waiting room") {
				t.Fatalf("no waiting room panel with its figures:\n%s", body)
			}
			for _, part := range c.says {
				if !strings.Contains(figures.Text(), part) {
					t.Errorf("the figures lack %q: %s", part, figures.Text())
				}
			}
			if got := figures.Find("dl").Length() == 1; got != c.figuresOK {
				t.Errorf("figures shown: %v, want %v", got, c.figuresOK)
			}
			if got := figures.AttrOr("hx-get", "") == "/admin/shows/42?part=waiting-room"; got != c.hx {
				t.Errorf("refreshes itself: %v, want %v", got, c.hx)
			}
			// the refresh answers the same figures alone
			res, part := do(t, app, "GET", "/admin/shows/42?part=waiting-room", nil, "tok-staff")
			if res.StatusCode != 200 || !strings.HasPrefix(part, `<div id="waiting-room-figures"`) || strings.Contains(part, "<html") {
				t.Errorf("the refresh: %d\n%s", res.StatusCode, part)
			}
			if got := strings.Contains(part, `hx-get=`); got != c.hx {
				t.Errorf("the refresh refreshes again: %v, want %v", got, c.hx)
			}
			for _, want := range c.says {
				if !strings.Contains(part, want) {
					t.Errorf("the refresh lacks %q", want)
				}
			}
			form := panel.Find(`form[method="post"][action="/admin/shows/42/waiting-room"]`)
			if got := form.Length() == 1; got != c.form {
				t.Fatalf("form: %v, want %v", got, c.form)
			}
			if c.form && (form.Find(`input[name="_csrf"]`).Length() != 1 || form.Find(`input[name="waiting_room"][type="checkbox"]`).Length() != 1 ||
				form.Find(`input[name="admit_per_minute"]`).AttrOr("value", "") != "600") {
				t.Errorf("the form lacks the CSRF token, the box or the pace:\n%s", body)
			}
		})
	}
}

// TestConsoleWaitingRoom_Form: the form changes only what changed and redirects with a
// notice; a bad pace is 400 with the input kept and no call; a refusal by the catalog
// shows the page again in the console's words; the figures partial is the figures
// alone, 404 for no show; signed-out visitors are sent to sign in, customers get 403.
func TestConsoleWaitingRoom_Form(t *testing.T) {
	app, cat, _ := roomApp(services.ShowOnSale)
	tok := issuedCSRF(t, app)
	post := func(form url.Values, who string) (*fiber.App, int, string, string) {
		res, body := do(t, app, "POST", "/admin/shows/42/waiting-room", withCSRF(form, tok), who)
		return app, res.StatusCode, res.Header.Get("Location"), body
	}
	steps := []struct {
		name     string
		form     url.Values
		status   int
		on       *bool // the change asked for (nil: none)
		pace     *int
		called   bool
		says     string
		redirect string
	}{
		{"on, same pace", url.Values{"waiting_room": {"on"}, "admit_per_minute": {"600"}}, 303, ptr(true), nil, true, "", "/admin/shows/42?done=waiting-room"},
		{"pace only", url.Values{"waiting_room": {"on"}, "admit_per_minute": {"75"}}, 303, nil, ptr(75), true, "", "/admin/shows/42?done=waiting-room"},
		{"pace too slow", url.Values{"waiting_room": {"on"}, "admit_per_minute": {"0"}}, 400, nil, nil, false,
			"The pace must be a whole number of buyers a minute from 1 to 100000.", ""},
		{"pace too fast", url.Values{"admit_per_minute": {"100001"}}, 400, nil, nil, false, `value="100001"`, ""},
		{"pace not a number", url.Values{"admit_per_minute": {"1e3"}}, 400, nil, nil, false, `value="1e3"`, ""},
		{"off", url.Values{"admit_per_minute": {"75"}}, 303, ptr(false), nil, true, "", "/admin/shows/42?done=waiting-room"},
	}
	for _, c := range steps {
		t.Run(c.name, func(t *testing.T) {
			cat.changes = nil
			_, st, loc, body := post(c.form, "tok-staff")
			if st != c.status || loc != c.redirect {
				t.Fatalf("%d %q, want %d %q\n%s", st, loc, c.status, c.redirect, body)
			}
			if c.says != "" && !strings.Contains(body, c.says) {
				t.Errorf("the page lacks %q", c.says)
			}
			if got := len(cat.changes) == 1; got != c.called {
				t.Fatalf("UpdateShow called: %v, want %v", got, c.called)
			}
			if !c.called {
				return
			}
			ch := cat.changes[0]
			if !samePtr(ch.WaitingRoom, c.on) || !samePtr(ch.AdmitPerMinute, c.pace) || ch.SaleOpensAt != nil || ch.PurchaseLimit != nil || ch.Prices != nil {
				t.Errorf("change %+v, want on %v pace %v and nothing else", ch, c.on, c.pace)
			}
		})
	}
	res, body := do(t, app, "GET", "/admin/shows/42?done=waiting-room", nil, "tok-staff")
	if res.StatusCode != 200 || !strings.Contains(body, "The waiting room is off: every buyer may choose seats and order (the pace stays 75 buyers a minute).") {
		t.Errorf("notice after saving: %d", res.StatusCode)
	}

	t.Run("a refusal in the console's words", func(t *testing.T) {
		cat.err = &services.Error{Code: services.CodeInvalidRequest, Message: "admit_per_minute must be a whole number from 1 to 100000"}
		defer func() { cat.err = nil }()
		_, st, _, body := post(url.Values{"admit_per_minute": {"80"}}, "tok-staff")
		if st != 400 || !strings.Contains(body, "The pace must be a whole number from 1 to 100000.") || !strings.Contains(body, `value="80"`) {
			t.Errorf("refused: %d\n%s", st, body)
		}
		cat.err = &services.Error{Code: services.CodeConflict, Message: "show 42 is cancelled"}
		if _, st, _, body := post(url.Values{"admit_per_minute": {"80"}}, "tok-staff"); st != 409 || !strings.Contains(body, "Show 42 is cancelled.") {
			t.Errorf("conflict: %d", st)
		}
	})

	t.Run("the figures alone", func(t *testing.T) {
		res, body := do(t, app, "GET", "/admin/shows/42?part=waiting-room", nil, "tok-staff")
		if res.StatusCode != 200 || !strings.HasPrefix(body, `<div id="waiting-room-figures"`) || strings.Contains(body, "<html") {
			t.Errorf("partial: %d\n%s", res.StatusCode, body)
		}
		if res, _ := do(t, app, "GET", "/admin/shows/43?part=waiting-room", nil, "tok-staff"); res.StatusCode != 404 {
			t.Errorf("figures of no show: %d, want 404", res.StatusCode)
		}
	})

	t.Run("staff only", func(t *testing.T) {
		cat.changes = nil
		_, st, loc, _ := post(url.Values{"admit_per_minute": {"9"}}, "")
		if st != fiber.StatusSeeOther || !strings.HasPrefix(loc, "/login") {
			t.Errorf("signed out: %d %q", st, loc)
		}
		_, st, _, body := post(url.Values{"admit_per_minute": {"9"}}, "tok-7")
		if st != fiber.StatusForbidden || !strings.Contains(body, "This page is for cinema staff only.") {
			t.Errorf("customer: %d", st)
		}
		if res, _ := do(t, app, "GET", "/admin/shows/42?part=waiting-room", nil, "tok-7"); res.StatusCode != fiber.StatusForbidden {
			t.Errorf("customer reading the figures: %d", res.StatusCode)
		}
		if len(cat.changes) != 0 {
			t.Errorf("UpdateShow called for a visitor or a customer: %+v", cat.changes)
		}
	})
}

func ptr[T any](v T) *T { return &v }

func samePtr[T comparable](a, b *T) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
