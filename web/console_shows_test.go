package web

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// consoleSession is a browser-like client signed in with a session token: it keeps
// cookies (the CSRF cookie among them) and posts forms with the page's CSRF token.
type consoleSession struct {
	a      *testApp
	client *http.Client
	csrf   string
}

func (a *testApp) consoleSession(token string) *consoleSession {
	a.t.Helper()
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(a.base)
	jar.SetCookies(u, []*http.Cookie{{Name: "sf_session", Value: token, Path: "/"}})
	return &consoleSession{a: a, client: &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// get fetches a page and remembers its CSRF token; it returns the status and the body.
func (s *consoleSession) get(path string) (int, string) {
	s.a.t.Helper()
	res, err := s.client.Get(s.a.base + path)
	if err != nil {
		s.a.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if m := csrfInput.FindStringSubmatch(string(b)); m != nil {
		s.csrf = m[1]
	}
	return res.StatusCode, string(b)
}

// post submits a form with the last page's CSRF token; it returns the status, the
// redirect location and the body.
func (s *consoleSession) post(path string, form url.Values) (int, string, string) {
	s.a.t.Helper()
	if s.csrf == "" {
		s.get("/admin/shows")
	}
	form.Set("_csrf", s.csrf)
	res, err := s.client.PostForm(s.a.base+path, form)
	if err != nil {
		s.a.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header.Get("Location"), string(b)
}

// showFormValues is a filled new-show form: movie, hall, date and start, the sale open
// from now until the start, a price for every zone, once.
func showFormValues(p adminCatalogPick, movie, date, start string) url.Values {
	v := url.Values{"movie_id": {movie}, "hall_id": {p.hall}, "date": {date}, "start": {start},
		"opens_date": {p.today}, "opens_time": {"00:00"},
		"purchase_limit": {"4"}, "days": {"1"}}
	for _, z := range p.zones {
		v.Set("price_"+z, "42.50")
	}
	return v
}

var showURL = regexp.MustCompile(`^/admin/shows/([0-9]+)$`)

// TestAdminShows_FormsCreateEditAndRefuse drives the console's movie and show forms
// without JavaScript in a cinema in Europe/Berlin: a movie is added; a show is created
// at a local time and lists on its day with its end time; a time in the
// spring-forward gap, an overlap (naming the other show) and a missing price are
// refused with the input kept; a repeat reports the day it skipped; a retired movie is
// no longer offered.
func TestAdminShows_FormsCreateEditAndRefuse(t *testing.T) {
	a := newTestApp(t, func(c *Config) { c.TimeZone = "Europe/Berlin" })
	staff := a.demoToken("staff")
	s := a.consoleSession(staff)
	p := a.pickCatalog(staff)

	if st, _, body := s.post("/admin/movies", url.Values{"title": {"Form Movie"}, "runtime_min": {"abc"}}); st != 400 ||
		!strings.Contains(body, `value="Form Movie"`) || !strings.Contains(body, "runtime must be a whole number") {
		t.Fatalf("movie with a bad runtime: %d", st)
	}
	st, loc, _ := s.post("/admin/movies", url.Values{"title": {"Form Movie"}, "runtime_min": {"100"}})
	movieURL := regexp.MustCompile(`^/admin/movies/([0-9]+)$`).FindStringSubmatch(loc)
	if st != 303 || movieURL == nil {
		t.Fatalf("add movie: %d %s", st, loc)
	}
	movie := movieURL[1]
	if st, _, body := s.post("/admin/movies", url.Values{"title": {"form movie"}, "runtime_min": {"90"}}); st != 409 || !strings.Contains(body, "already exists") {
		t.Errorf("duplicate movie: %d", st)
	}

	t.Run("choose hall without JavaScript shows its zones", func(t *testing.T) {
		v := showFormValues(p, movie, "2027-03-20", "19:30")
		v.Set("step", "hall")
		for _, z := range p.zones {
			v.Del("price_" + z)
		}
		st, _, body := s.post("/admin/shows", v)
		if st != 200 || !strings.Contains(body, `name="price_`+p.zones[0]+`"`) || !strings.Contains(body, `value="2027-03-20"`) {
			t.Fatalf("choose hall: %d", st)
		}
	})
	before := a.countShows(t)
	st, loc, body := s.post("/admin/shows", showFormValues(p, movie, "2027-03-20", "19:30"))
	m := showURL.FindStringSubmatch(loc)
	if st != 303 || m == nil {
		t.Fatalf("create show: %d %s %s", st, loc, body)
	}
	first := m[1]
	if _, page := s.get("/admin/shows?date=2027-03-20"); !strings.Contains(page, "Form Movie") || !strings.Contains(page, "19:30–21:25") ||
		!strings.Contains(page, `href="/admin/shows/`+first+`"`) {
		t.Errorf("the day's list lacks the show 19:30–21:25:\n%s", page)
	}
	if _, page := s.get("/admin/shows/" + first); !strings.Contains(page, `href="/admin/shows/`+first+`/seats"`) || !strings.Contains(page, "42.50") {
		t.Errorf("the show page lacks the seat map link or the price")
	}

	refusals := []struct {
		name   string
		change func(url.Values)
		status int
		says   []string
	}{
		{"spring-forward gap", func(v url.Values) { v.Set("date", "2027-03-28"); v.Set("start", "02:30") }, 400,
			[]string{"2027-03-28 02:30 does not exist in Europe/Berlin", `value="02:30"`, `value="2027-03-28"`}},
		{"fall-back overlap", func(v url.Values) { v.Set("date", "2027-10-31"); v.Set("start", "02:30") }, 400,
			[]string{"2027-10-31 02:30 happens twice in Europe/Berlin"}},
		{"overlap", func(v url.Values) { v.Set("start", "20:00") }, 409,
			[]string{"Overlaps show " + first + " (Form Movie at 2027-03-20 19:30)", `value="20:00"`}},
		{"missing price", func(v url.Values) { v.Set("date", "2027-03-22"); v.Del("price_" + p.zones[0]) }, 400,
			[]string{"Enter a price for zone"}},
		{"price not an amount", func(v url.Values) { v.Set("date", "2027-03-22"); v.Set("price_"+p.zones[0], "lots") }, 400,
			[]string{"must be an amount", `value="lots"`}},
		{"sale closes after the start", func(v url.Values) {
			v.Set("date", "2027-03-22")
			v.Set("closes_date", "2027-03-22")
			v.Set("closes_time", "20:00")
		}, 400, []string{"The sale closing must not be after the start"}},
	}
	for _, c := range refusals {
		t.Run(c.name, func(t *testing.T) {
			v := showFormValues(p, movie, "2027-03-20", "19:30")
			c.change(v)
			st, _, body := s.post("/admin/shows", v)
			if st != c.status {
				t.Errorf("status %d, want %d", st, c.status)
			}
			for _, part := range c.says {
				if !strings.Contains(body, part) {
					t.Errorf("the page lacks %q", part)
				}
			}
		})
	}
	if n := a.countShows(t); n != before+1 {
		t.Errorf("refused forms stored shows: %d -> %d", before, n)
	}

	t.Run("repeat reports the day it skipped", func(t *testing.T) {
		v := showFormValues(p, movie, "2027-03-19", "19:30")
		v.Set("days", "3")
		st, _, body := s.post("/admin/shows", v)
		if st != 409 || !strings.Contains(body, "2 of 3 days created") || !strings.Contains(body, "Overlaps show "+first+" (Form Movie at 2027-03-20 19:30)") {
			t.Fatalf("repeat over a taken day: %d\n%s", st, body)
		}
		if n := a.countShows(t); n != before+3 {
			t.Errorf("shows after the repeat: %d, want %d", n, before+3)
		}
		v = showFormValues(p, movie, "2027-04-01", "10:00")
		v.Set("days", "2")
		if st, loc, _ := s.post("/admin/shows", v); st != 303 || loc != "/admin/shows?date=2027-04-01" {
			t.Errorf("a repeat with every day free: %d %s", st, loc)
		}
	})

	t.Run("a retired movie is not offered", func(t *testing.T) {
		if st, loc, _ := s.post("/admin/movies/"+movie+"/retire", url.Values{}); st != 303 || loc != "/admin/movies/"+movie {
			t.Fatalf("retire: %d %s", st, loc)
		}
		if _, page := s.get("/admin/movies/" + movie); !strings.Contains(page, "retired") || !strings.Contains(page, "Un-retire") {
			t.Errorf("the movie page does not say retired")
		}
		if _, page := s.get("/admin/shows/new"); strings.Contains(page, "Form Movie") {
			t.Errorf("the new-show form offers a retired movie")
		}
		st, _, body := s.post("/admin/shows", showFormValues(p, movie, "2027-05-01", "19:30"))
		if st != 409 || !strings.Contains(body, "retired") {
			t.Errorf("a show of a retired movie: %d", st)
		}
		s.post("/admin/movies/"+movie+"/unretire", url.Values{})
		if _, page := s.get("/admin/shows/new"); !strings.Contains(page, "Form Movie") {
			t.Errorf("an un-retired movie is not offered")
		}
	})

	t.Run("runtime change refused while shows are upcoming", func(t *testing.T) {
		st, _, body := s.post("/admin/movies/"+movie, url.Values{"title": {"Form Movie"}, "runtime_min": {"130"}})
		if st != 409 || !strings.Contains(body, "show "+first) || !strings.Contains(body, `value="130"`) {
			t.Errorf("runtime change with upcoming shows: %d", st)
		}
		if st, loc, _ := s.post("/admin/movies/"+movie, url.Values{"title": {"Form Movie (4K)"}, "runtime_min": {"100"}}); st != 303 || loc != "/admin/movies/"+movie+"?saved=1" {
			t.Errorf("rename: %d %s", st, loc)
		}
	})
}

// countShows counts every stored show.
func (a *testApp) countShows(t *testing.T) int {
	t.Helper()
	var n int
	if err := a.DB.GetContext(context.Background(), &n, "SELECT COUNT(*) FROM shows"); err != nil {
		t.Fatal(err)
	}
	return n
}

// ruleOf reads a show's single-seat rule as the public show JSON says it.
func (a *testApp) ruleOf(t *testing.T, show string) string {
	t.Helper()
	r := a.do("GET", "/api/v1/shows/"+show, "", nil, nil)
	rule, _ := r.json(t)["single_seat_rule"].(string)
	return rule
}

// TestAdminShows_SingleSeatRuleForm sets a show's single-seat rule from the console: the
// new-show form offers it (off by default) and creates the show with the rule chosen; a
// value that is not a rule is refused with a clear message and creates nothing; the
// show's page names the rule, its edit form changes it (audited like the other fields)
// and refuses a bad value without changing anything.
func TestAdminShows_SingleSeatRuleForm(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	s := a.consoleSession(staff)
	p := a.pickCatalog(staff)
	date := a.localDate(22)

	if _, page := s.get("/admin/shows/new"); !strings.Contains(page, `name="single_seat_rule"`) ||
		!regexp.MustCompile(`<option value="off" selected`).MatchString(page) || !strings.Contains(page, "Enforce</strong>: a booking that leaves") {
		t.Fatalf("the new-show form does not offer the rule, off by default")
	}
	before := a.countShows(t)
	v := showFormValues(p, p.movie, date, "19:30")
	v.Set("single_seat_rule", "always")
	if st, _, body := s.post("/admin/shows", v); st != 400 || !strings.Contains(body, "The single-seat rule must be off, warn or enforce.") {
		t.Errorf("a bad rule on a new show: %d", st)
	}
	if n := a.countShows(t); n != before {
		t.Fatalf("a refused form stored a show: %d -> %d", before, n)
	}
	v.Set("single_seat_rule", "enforce")
	st, loc, body := s.post("/admin/shows", v)
	m := showURL.FindStringSubmatch(loc)
	if st != 303 || m == nil {
		t.Fatalf("create show: %d %s %s", st, loc, body)
	}
	show := m[1]
	if got := a.ruleOf(t, show); got != "enforce" {
		t.Errorf("the new show's rule: %q, want enforce", got)
	}
	_, page := s.get("/admin/shows/" + show)
	if !strings.Contains(page, `id="show-seat-rule">Enforce: `) || !regexp.MustCompile(`<option value="enforce" selected`).MatchString(page) {
		t.Fatalf("the show's page does not name and select the rule enforce")
	}

	edit := url.Values{}
	for _, f := range regexp.MustCompile(`<input id="[a-z_]+" name="([a-z_]+)" type="(?:date|time|number|text)"[^>]*value="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		edit.Set(f[1], f[2])
	}
	edit.Del("admit_per_minute") // the waiting room's own form
	for _, c := range []struct {
		name    string
		rule    string
		status  int
		want    string
		audited int
	}{
		{"warn", "warn", 303, "warn", 1},
		{"not a rule", "never", 400, "warn", 0},
		{"unchanged", "warn", 303, "warn", 0},
		{"off", "off", 303, "off", 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			updates := a.showUpdates(t, show)
			edit.Set("single_seat_rule", c.rule)
			st, loc, page := s.post("/admin/shows/"+show, edit)
			if st != c.status {
				t.Fatalf("status %d, want %d\n%s", st, c.status, page)
			}
			if st == 303 {
				if loc != "/admin/shows/"+show+"?done=saved" {
					t.Fatalf("redirect to %q", loc)
				}
				_, page = s.get(loc)
			} else if !strings.Contains(page, `role="alert"`) || !strings.Contains(page, "The single-seat rule must be off, warn or enforce.") {
				t.Errorf("the refusal is not shown as an alert with its reason")
			}
			if got := a.ruleOf(t, show); got != c.want {
				t.Errorf("rule %q, want %q", got, c.want)
			}
			if n := a.showUpdates(t, show) - updates; n != c.audited {
				t.Errorf("show.update entries added: %d, want %d", n, c.audited)
			}
			if st == 303 && !strings.Contains(page, `id="show-seat-rule">`+strings.ToUpper(c.want[:1])+c.want[1:]+`: `) {
				t.Errorf("the show's page does not name the rule %s", c.want)
			}
			if c.audited > 0 {
				var before, after string
				if err := a.DB.GetContext(context.Background(), &before, `SELECT JSON_UNQUOTE(JSON_EXTRACT(before_json, '$.single_seat_rule'))
					FROM audit_log WHERE entity = 'show' AND entity_id = ? AND action = 'show.update' ORDER BY id DESC LIMIT 1`, show); err != nil {
					t.Fatal(err)
				}
				if err := a.DB.GetContext(context.Background(), &after, `SELECT JSON_UNQUOTE(JSON_EXTRACT(after_json, '$.single_seat_rule'))
					FROM audit_log WHERE entity = 'show' AND entity_id = ? AND action = 'show.update' ORDER BY id DESC LIMIT 1`, show); err != nil {
					t.Fatal(err)
				}
				if after != c.want || before == after {
					t.Errorf("the audit entry's rule: before %q, after %q; want a change to %q", before, after, c.want)
				}
			}
		})
	}
}

// TestAdminShows_DateTimeFields24Hour: the console's date and time fields are text
// fields read YYYY-MM-DD and HH:MM (24-hour) in every browser locale, not the browser's
// pickers (mm/dd/yyyy, 03:45 PM); a time or date typed otherwise is refused naming the
// field, with the input kept; a one-digit hour reads as the 24-hour time it is.
func TestAdminShows_DateTimeFields24Hour(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	s := a.consoleSession(staff)
	p := a.pickCatalog(staff)

	inputs := regexp.MustCompile(`<input[^>]*>`)
	for _, path := range []string{"/admin/shows/new", "/admin/shows", "/admin/audit"} {
		st, page := s.get(path)
		if st != 200 {
			t.Fatalf("%s: %d", path, st)
		}
		for _, in := range inputs.FindAllString(page, -1) {
			if strings.Contains(in, `type="date"`) || strings.Contains(in, `type="time"`) || strings.Contains(in, `type="datetime-local"`) {
				t.Errorf("%s has a field in the browser's locale: %s", path, in)
			}
		}
	}
	_, form := s.get("/admin/shows/new")
	for _, want := range []string{`id="start" name="start" type="text" inputmode="numeric" pattern="([01]?[0-9]|2[0-3]):[0-5][0-9]"`,
		`id="date" name="date" type="text" inputmode="numeric" pattern="[0-9]{4}-[0-9]{2}-[0-9]{2}"`, `placeholder="HH:MM"`, `placeholder="YYYY-MM-DD"`} {
		if !strings.Contains(form, want) {
			t.Errorf("the new-show form lacks %s", want)
		}
	}

	before := a.countShows(t)
	for _, c := range []struct{ field, typed, says string }{
		{"start", "7:30 PM", "The start time must be a time on the 24-hour clock written HH:MM, such as 19:30 (not 7:30 PM)."},
		{"start", "24:00", "The start time must be a time on the 24-hour clock written HH:MM"},
		{"date", "04/14/2027", "The date must be a date written YYYY-MM-DD, such as 2026-12-24."},
		{"opens_time", "03:45 PM", "The sale opening time must be a time on the 24-hour clock"},
		{"closes_date", "2027-02-30", "The sale closing date must be a date written YYYY-MM-DD"},
	} {
		v := showFormValues(p, p.movie, "2027-04-14", "19:30")
		v.Set(c.field, c.typed)
		st, _, body := s.post("/admin/shows", v)
		if st != 400 || !strings.Contains(body, c.says) || !strings.Contains(body, `value="`+c.typed+`"`) {
			t.Errorf("%s typed %q: %d, want 400 saying %q with the input kept", c.field, c.typed, st, c.says)
		}
	}
	if n := a.countShows(t); n != before {
		t.Fatalf("a refused form stored a show: %d -> %d", before, n)
	}
	st, loc, body := s.post("/admin/shows", showFormValues(p, p.movie, "2027-04-14", "9:05"))
	m := showURL.FindStringSubmatch(loc)
	if st != 303 || m == nil {
		t.Fatalf("a start typed 9:05: %d %s %s", st, loc, body)
	}
	if _, page := s.get("/admin/shows?date=2027-04-14"); !strings.Contains(page, "09:05–") {
		t.Errorf("the day's list lacks the show at 09:05")
	}

	// the edit form: the stored window reads back 24-hour; a 12-hour time is refused
	_, page := s.get("/admin/shows/" + m[1])
	edit := url.Values{}
	for _, f := range regexp.MustCompile(`<input id="[a-z_]+" name="([a-z_]+)" type="(?:number|text)"[^>]*value="([^"]*)"`).FindAllStringSubmatch(page, -1) {
		edit.Set(f[1], f[2])
	}
	if !regexp.MustCompile(`^([01][0-9]|2[0-3]):[0-5][0-9]$`).MatchString(edit.Get("closes_time")) {
		t.Fatalf("the edit form's closing time reads %q", edit.Get("closes_time"))
	}
	edit.Set("closes_time", "8:05 PM")
	if st, _, body := s.post("/admin/shows/"+m[1], edit); st != 400 || !strings.Contains(body, "The sale closing time must be a time on the 24-hour clock") {
		t.Errorf("an edit with the closing time 8:05 PM: %d", st)
	}
	edit.Set("closes_time", "8:05")
	if st, loc, _ := s.post("/admin/shows/"+m[1], edit); st != 303 {
		t.Errorf("an edit with the closing time 8:05: %d %s", st, loc)
	} else if _, page := s.get("/admin/shows/" + m[1]); !strings.Contains(page, `value="08:05"`) {
		t.Errorf("the closing time 8:05 is not stored as 08:05")
	}
}
