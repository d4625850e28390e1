package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"seatflow/services/catalog"
)

// chainFixture is an install of three cinemas on the app's clock, held at Friday
// 26 March 2027 12:00 UTC: the first (the settings'), one in Asia/Shanghai (CNY) and
// one in Europe/London (GBP), each of the two with a hall, and shows around each
// cinema's local midnight and Europe/London's two daylight-saving changes (Sunday 28
// March 2027 01:00 UTC, Sunday 31 October 2027 01:00 UTC).
type chainFixture struct {
	admin                string
	shanghai, london     string // cinema ids
	shHall, lnHall       string
	movie                string
	shows                map[string]string // name -> show id
	shanghaiN, londonN   string            // cinema names
	shanghaiZ, londonZ   *time.Location
	firstCinema, nowDate string
}

// chainNow is the app's clock in the chain tests.
var chainNow = time.Date(2027, 3, 26, 12, 0, 0, 0, time.UTC)

// chainShows are the fixture's shows: cinema ("sh" or "ln") and local start.
var chainShows = []struct{ name, cinema, local string }{
	{"sh-27-2300", "sh", "2027-03-27 23:00"},     // 15:00Z on the 27th
	{"sh-28-0030", "sh", "2027-03-28 00:30"},     // 16:30Z on the 27th: the 28th in Shanghai
	{"ln-27-2300", "ln", "2027-03-27 23:00"},     // GMT: 23:00Z
	{"ln-28-0030", "ln", "2027-03-28 00:30"},     // GMT, half an hour before the clocks go forward
	{"ln-28-1930", "ln", "2027-03-28 19:30"},     // BST: 18:30Z
	{"ln-oct-30-1930", "ln", "2027-10-30 19:30"}, // BST: 18:30Z
	{"ln-oct-31-1930", "ln", "2027-10-31 19:30"}, // GMT again: 19:30Z
}

func (a *testApp) chainFixture(t *testing.T) *chainFixture {
	t.Helper()
	a.clock.Set(time.Until(chainNow))
	a.clock.Freeze()
	f := &chainFixture{admin: a.demoToken("admin"), shows: map[string]string{}, shanghaiN: "Bund Picturehouse",
		londonN: "Strand Electric", nowDate: "2027-03-26"}
	f.shanghaiZ, _ = time.LoadLocation("Asia/Shanghai")
	f.londonZ, _ = time.LoadLocation("Europe/London")
	r := a.do("GET", "/api/v1/cinemas", "", nil, nil)
	var cs struct{ Cinemas []struct{ ID, Name string } }
	if r.status != 200 || json.Unmarshal(r.body, &cs) != nil || len(cs.Cinemas) != 1 {
		t.Fatalf("cinemas: %d %s", r.status, r.body)
	}
	f.firstCinema = cs.Cinemas[0].Name
	cinema := func(name, zone, currency string) string {
		r := a.do("POST", "/api/v1/admin/cinemas", f.admin, map[string]any{"name": name, "time_zone": zone, "currency": currency}, nil)
		if r.status != 201 {
			t.Fatalf("create cinema %s: %d %s", name, r.status, r.body)
		}
		return r.json(t)["id"].(string)
	}
	f.shanghai, f.london = cinema(f.shanghaiN, "Asia/Shanghai", "CNY"), cinema(f.londonN, "Europe/London", "GBP")
	hall := func(name, cinemaID string) string {
		r := a.do("POST", "/api/v1/admin/halls", f.admin, map[string]any{"name": name, "cinema_id": cinemaID, "layout": "SSSSSS\nSSSSSS\nSSSSSS"}, nil)
		if r.status != 201 {
			t.Fatalf("create hall %s: %d %s", name, r.status, r.body)
		}
		return r.json(t)["id"].(string)
	}
	f.shHall, f.lnHall = hall("Bund 1", f.shanghai), hall("Strand 1", f.london)
	r = a.do("POST", "/api/v1/admin/movies", f.admin, map[string]any{"title": "Two Cities", "runtime_min": 60}, nil)
	if r.status != 201 {
		t.Fatalf("create movie: %d %s", r.status, r.body)
	}
	f.movie = r.json(t)["id"].(string)
	for _, s := range chainShows {
		hallID, loc := f.shHall, f.shanghaiZ
		if s.cinema == "ln" {
			hallID, loc = f.lnHall, f.londonZ
		}
		starts, err := time.ParseInLocation("2006-01-02 15:04", s.local, loc)
		if err != nil {
			t.Fatal(err)
		}
		r := a.do("POST", "/api/v1/admin/shows", f.admin, map[string]any{"movie_id": f.movie, "hall_id": hallID,
			"starts_at": starts.Format(time.RFC3339), "sale_opens_at": chainNow.Add(-time.Hour).Format(time.RFC3339),
			"sale_closes_at": starts.Add(-time.Hour).Format(time.RFC3339),
			"prices":         []map[string]any{{"zone": catalog.ZoneStandard, "price_minor": 4500}}, "purchase_limit": 4}, nil)
		if r.status != 201 {
			t.Fatalf("create show %s: %d %s", s.name, r.status, r.body)
		}
		f.shows[s.name] = r.json(t)["id"].(string)
	}
	return f
}

// cinemaOf is the name of the cinema of the fixture's show name.
func (f *chainFixture) cinemaOf(name string) string {
	if strings.HasPrefix(name, "sh-") {
		return f.shanghaiN
	}
	return f.londonN
}

// listed is the names of the fixture's shows an API listing holds.
func (f *chainFixture) listed(t *testing.T, a *testApp, query string) []string {
	t.Helper()
	r := a.do("GET", "/api/v1/shows?"+query, "", nil, nil)
	var v struct {
		Shows []struct {
			ID     string
			Cinema struct{ ID, Name string }
		}
	}
	if r.status != 200 || json.Unmarshal(r.body, &v) != nil {
		t.Fatalf("shows?%s: %d %s", query, r.status, r.body)
	}
	var out []string
	for _, s := range v.Shows {
		for name, id := range f.shows {
			if id == s.ID {
				out = append(out, name)
			}
		}
	}
	return out
}

// TestCinemaChain_ListingByDateIsEachShowsCinemasLocalDay: a date lists each cinema's
// shows of that day in its own zone (a Shanghai show at 00:30 on the 28th is the 28th
// though it starts on the 27th in UTC; a London show at 23:00 GMT is the 27th), with
// cinema_id one cinema alone, across both daylight-saving changes.
func TestCinemaChain_ListingByDateIsEachShowsCinemasLocalDay(t *testing.T) {
	a := newTestApp(t, nil)
	f := a.chainFixture(t)
	for _, tc := range []struct {
		name, query string
		want        []string
	}{
		{"every cinema on the 27th", "date=2027-03-27", []string{"sh-27-2300", "ln-27-2300"}},
		{"every cinema on the 28th", "date=2027-03-28", []string{"sh-28-0030", "ln-28-0030", "ln-28-1930"}},
		{"Shanghai on the 28th", "date=2027-03-28&cinema_id=" + f.shanghai, []string{"sh-28-0030"}},
		{"London on the 28th, across the change to BST", "date=2027-03-28&cinema_id=" + f.london, []string{"ln-28-0030", "ln-28-1930"}},
		{"London on the 27th", "date=2027-03-27&cinema_id=" + f.london, []string{"ln-27-2300"}},
		{"London the day before the change to GMT", "date=2027-10-30&cinema_id=" + f.london, []string{"ln-oct-30-1930"}},
		{"London on the day of the change to GMT", "date=2027-10-31&cinema_id=" + f.london, []string{"ln-oct-31-1930"}},
		{"Shanghai has nothing on the 27th of October", "date=2027-10-31&cinema_id=" + f.shanghai, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := f.listed(t, a, tc.query)
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("shows?%s = %v, want %v", tc.query, got, tc.want)
			}
		})
	}
}

// TestCinemaChain_ShowsTakeTheirCinemasCurrency: a show created in a hall takes its
// cinema's currency, not the install's setting.
func TestCinemaChain_ShowsTakeTheirCinemasCurrency(t *testing.T) {
	a := newTestApp(t, nil)
	f := a.chainFixture(t)
	for _, tc := range []struct{ show, want string }{{"sh-28-0030", "CNY"}, {"ln-28-1930", "GBP"}} {
		t.Run(tc.show, func(t *testing.T) {
			r := a.do("GET", "/api/v1/shows/"+f.shows[tc.show], "", nil, nil)
			var s struct{ Zones []struct{ Currency string } }
			if json.Unmarshal(r.body, &s) != nil || len(s.Zones) == 0 {
				t.Fatalf("show: %d %s", r.status, r.body)
			}
			if got := s.Zones[0].Currency; got != tc.want {
				t.Errorf("currency = %q, want %q (%s)", got, tc.want, r.body)
			}
		})
	}
}

// TestCinemaChain_ShowPageTellsTheShowsOwnLocalTime: the show page of each cinema's
// show tells its start in that cinema's zone, before and after London's change to BST.
func TestCinemaChain_ShowPageTellsTheShowsOwnLocalTime(t *testing.T) {
	a := newTestApp(t, nil)
	f := a.chainFixture(t)
	for _, tc := range []struct{ show, want, notUTC string }{
		{"sh-28-0030", "Sun 28 Mar, 00:30", "16:30"},
		{"sh-27-2300", "Sat 27 Mar, 23:00", "15:00"},
		{"ln-28-0030", "Sun 28 Mar, 00:30", "01:30"},
		{"ln-28-1930", "Sun 28 Mar, 19:30", "18:30"},
		{"ln-oct-31-1930", "Sun 31 Oct, 19:30", "20:30"},
	} {
		t.Run(tc.show, func(t *testing.T) {
			r := a.getPage("/shows/"+f.shows[tc.show], "")
			body := string(r.body)
			if !strings.Contains(body, `class="show-cinema">`+f.cinemaOf(tc.show)+"<") {
				t.Errorf("show page %s does not name its cinema %s", tc.show, f.cinemaOf(tc.show))
			}
			if r.status != 200 || !strings.Contains(body, tc.want) {
				t.Errorf("show page %s (%d) does not tell %q", tc.show, r.status, tc.want)
			}
			if strings.Contains(body, ", "+tc.notUTC) || strings.Contains(body, ">"+tc.notUTC) {
				t.Errorf("show page %s tells %s, another zone's time", tc.show, tc.notUTC)
			}
		})
	}
}

// TestCinemaChain_HomePagePicksACinemaAndRemembersIt: a chain's programme has a cinema
// picker; a chosen cinema lists its shows alone, at their local times, and the choice
// is remembered in a cookie; "All cinemas" names each show's cinema; the programme of
// a single cinema has neither picker nor label.
func TestCinemaChain_HomePagePicksACinemaAndRemembersIt(t *testing.T) {
	a := newTestApp(t, nil)
	t.Run("a single cinema has no picker", func(t *testing.T) {
		body := string(a.getPage("/", "").body)
		if strings.Contains(body, `id="cinema-picker"`) || strings.Contains(body, `class="show-cinema"`) {
			t.Error("a single-cinema programme shows the cinema picker or labels")
		}
	})
	f := a.chainFixture(t)
	get := func(t *testing.T, path, cookie string) (string, string) {
		t.Helper()
		hdr := map[string]string{}
		if cookie != "" {
			hdr["Cookie"] = cookie
		}
		r := a.do("GET", path, "", nil, hdr)
		if r.status != 200 {
			t.Fatalf("GET %s: %d", path, r.status)
		}
		set := ""
		for _, c := range r.header.Values("Set-Cookie") {
			if strings.HasPrefix(c, "cinema=") {
				set = strings.SplitN(c, ";", 2)[0]
			}
		}
		return string(r.body), set
	}
	showLink := func(name string) string { return `href="/shows/` + f.shows[name] + `"` }
	for _, tc := range []struct {
		name, path     string
		want, notWant  []string
		rememberCinema string
	}{
		{"all cinemas name each show's cinema", "/?cinema=all&date=2027-03-28",
			[]string{`id="cinema-picker"`, ">All cinemas<", `class="show-cinema">` + f.shanghaiN + "<", `class="show-cinema">` + f.londonN + "<",
				showLink("sh-28-0030"), showLink("ln-28-1930")},
			[]string{showLink("sh-27-2300")}, "all"},
		{"London alone, at London's local times", "/?cinema=" + f.london + "&date=2027-03-28",
			[]string{showLink("ln-28-0030"), showLink("ln-28-1930"), ">00:30<", ">19:30<"},
			[]string{showLink("sh-28-0030"), `class="show-cinema"`, ">18:30<"}, f.london},
		{"Shanghai alone, at Shanghai's local times", "/?cinema=" + f.shanghai + "&date=2027-03-28",
			[]string{showLink("sh-28-0030"), ">00:30<"},
			[]string{showLink("ln-28-1930"), ">16:30<"}, f.shanghai},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, set := get(t, tc.path, "")
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("%s lacks %q", tc.path, w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(body, w) {
					t.Errorf("%s holds %q", tc.path, w)
				}
			}
			if set != "cinema="+tc.rememberCinema {
				t.Fatalf("%s sets cookie %q, want cinema=%s", tc.path, set, tc.rememberCinema)
			}
			// the next visit without ?cinema= lists the remembered cinema
			again, _ := get(t, "/?date=2027-03-28", set)
			for _, w := range tc.want {
				if !strings.Contains(again, w) {
					t.Errorf("the remembered choice %s lacks %q", set, w)
				}
			}
		})
	}
	t.Run("an unknown cinema lists every cinema and changes nothing", func(t *testing.T) {
		body, set := get(t, "/?cinema=999999&date=2027-03-28", "")
		if set != "" || !strings.Contains(body, showLink("sh-28-0030")) || !strings.Contains(body, showLink("ln-28-1930")) {
			t.Errorf("?cinema=999999 set cookie %q or did not list every cinema", set)
		}
	})
}

// chainOrder buys and pays a seat of show for a new buyer: the buyer's token and the
// order number.
func (a *testApp) chainOrder(t *testing.T, show string) (string, string) {
	t.Helper()
	token := a.newUser()
	no := a.orderSeats(token, show, a.freeSeats(show, 1))
	a.payOrder(token, no)
	return token, no
}

// TestCinemaChain_TicketCalendarAndEmailTellTheShowsCinema: a paid order of a London
// show after the change to BST and one of a Shanghai show past its local midnight:
// the ticket page tells the local start, the .ics has the instant in UTC and the
// show's cinema as LOCATION, and the e-mail the local start; the order page, its
// ticket, the buyer's list of orders and the e-mail name the cinema.
func TestCinemaChain_TicketCalendarAndEmailTellTheShowsCinema(t *testing.T) {
	a := newTestApp(t, nil)
	f := a.chainFixture(t)
	for _, tc := range []struct {
		show, cinema, ticket, dtstart, mail, zone string
	}{
		{"ln-28-1930", f.londonN, "Sun 28 Mar, 19:30", "DTSTART:20270328T183000Z", "Sun 28 Mar 2027, 19:30", "Europe/London"},
		{"sh-28-0030", f.shanghaiN, "Sun 28 Mar, 00:30", "DTSTART:20270327T163000Z", "Sun 28 Mar 2027, 00:30", "Asia/Shanghai"},
	} {
		t.Run(tc.show, func(t *testing.T) {
			token, no := a.chainOrder(t, f.shows[tc.show])
			ticket := a.getPage("/orders/"+no+"/ticket", token)
			if ticket.status != 200 || !strings.Contains(string(ticket.body), tc.ticket) || !strings.Contains(string(ticket.body), "<dd>"+tc.cinema+"</dd>") {
				t.Errorf("ticket (%d) does not tell %q at %s", ticket.status, tc.ticket, tc.cinema)
			}
			order := a.getPage("/orders/"+no, token)
			if order.status != 200 || !strings.Contains(string(order.body), "<span data-cinema>"+tc.cinema+"</span>") || !strings.Contains(string(order.body), "<dd>"+tc.cinema+"</dd>") {
				t.Errorf("the order page (%d) does not name %s", order.status, tc.cinema)
			}
			if list := a.getPage("/orders", token); list.status != 200 || !strings.Contains(string(list.body), tc.cinema+" · ") {
				t.Errorf("my orders (%d) do not name %s", list.status, tc.cinema)
			}
			// a pending order's "pay by" in the list is the show's cinema's time, as on its page
			pendingNo := a.orderSeats(token, f.shows[tc.show], a.freeSeats(f.shows[tc.show], 1))
			var pending struct {
				ExpiresAt time.Time `json:"expires_at"`
			}
			if r := a.do("GET", "/api/v1/orders/"+pendingNo, token, nil, nil); json.Unmarshal(r.body, &pending) != nil || pending.ExpiresAt.IsZero() {
				t.Fatalf("pending order %s: %d %s", pendingNo, r.status, r.body)
			}
			loc, _ := time.LoadLocation(tc.zone)
			if list := string(a.getPage("/orders", token).body); !strings.Contains(list, pending.ExpiresAt.In(loc).Format("15:04")) {
				t.Errorf("my orders do not tell the pending order's deadline %s in %s", pending.ExpiresAt.In(loc).Format("15:04"), tc.zone)
			}
			ics := string(a.getPage("/orders/"+no+"/calendar.ics", token).body)
			if !strings.Contains(ics, tc.dtstart+"\r\n") || !strings.Contains(ics, "LOCATION:"+tc.cinema+"\r\n") {
				t.Errorf(".ics lacks %s or LOCATION:%s:\n%s", tc.dtstart, tc.cinema, ics)
			}
			var ids []int64
			if err := a.DB.Select(&ids, "SELECT id FROM mail_outbox WHERE order_no = ? AND kind = 'order_paid'", no); err != nil || len(ids) != 1 {
				t.Fatalf("the paid e-mail of %s: %v %v", no, ids, err)
			}
			m := string(a.getPage(fmt.Sprintf("/admin/mailbox/%d", ids[0]), f.admin).body)
			if !strings.Contains(m, tc.mail) || !strings.Contains(m, tc.cinema) {
				t.Errorf("the e-mail does not tell %q at %s", tc.mail, tc.cinema)
			}
		})
	}
}

// TestCinemaChain_ConsoleTypesDatesInTheHallsCinemasZone: the new-show form says the
// chosen hall's cinema's zone and prices in its currency, and a show typed there for
// 00:30 on 28 March starts at 00:30 in that zone; the day's list and the show's page
// tell each show's local time.
func TestCinemaChain_ConsoleTypesDatesInTheHallsCinemasZone(t *testing.T) {
	a := newTestApp(t, nil)
	f := a.chainFixture(t)
	for _, tc := range []struct {
		name, hall, zone, currency, cinema string
		loc                                *time.Location
	}{
		{"Shanghai", f.shHall, "Asia/Shanghai", "CNY", f.shanghaiN, f.shanghaiZ},
		{"London", f.lnHall, "Europe/London", "GBP", f.londonN, f.londonZ},
	} {
		t.Run(tc.name, func(t *testing.T) {
			form := url.Values{"movie_id": {f.movie}, "hall_id": {tc.hall}, "step": {"hall"}}
			r := a.postPage("/admin/shows/new", "/admin/shows", f.admin, form)
			body := string(r.body)
			if r.status != 200 || !strings.Contains(body, "in "+tc.cinema+"'s time zone, "+tc.zone+".") || !strings.Contains(body, "Prices ("+tc.currency+")") {
				t.Fatalf("the form for hall %s (%d) does not name %s's zone %s and currency %s", tc.hall, r.status, tc.cinema, tc.zone, tc.currency)
			}
			form = url.Values{"movie_id": {f.movie}, "hall_id": {tc.hall}, "date": {"2027-04-02"}, "start": {"00:30"},
				"opens_date": {"2027-03-26"}, "opens_time": {"00:00"}, "days": {"1"}, "price_" + catalog.ZoneStandard: {"45.00"}}
			r = a.postPage("/admin/shows/new", "/admin/shows", f.admin, form)
			loc := r.header.Get("Location")
			if r.status != http.StatusSeeOther || !strings.HasPrefix(loc, "/admin/shows/") {
				t.Fatalf("create: %d %s %.400s", r.status, loc, r.body)
			}
			id := strings.TrimPrefix(loc, "/admin/shows/")
			var s struct {
				StartsAt string `json:"starts_at"`
				Zones    []struct{ Currency string }
			}
			if r := a.do("GET", "/api/v1/shows/"+id, "", nil, nil); json.Unmarshal(r.body, &s) != nil || len(s.Zones) == 0 {
				t.Fatalf("show %s: %d %s", id, r.status, r.body)
			}
			want := time.Date(2027, 4, 2, 0, 30, 0, 0, tc.loc).UTC().Format(time.RFC3339)
			if s.StartsAt != want || s.Zones[0].Currency != tc.currency {
				t.Errorf("the typed show starts %s in %s, want %s in %s", s.StartsAt, s.Zones[0].Currency, want, tc.currency)
			}
			page := string(a.getPage(loc, f.admin).body)
			if !strings.Contains(page, "Fri 2 Apr, 00:30") || !strings.Contains(page, tc.zone) {
				t.Errorf("the show's console page does not tell Fri 2 Apr, 00:30 (%s)", tc.zone)
			}
			day := string(a.getPage("/admin/shows?date=2027-04-02", f.admin).body)
			if !strings.Contains(day, `href="/admin/shows/`+id+`"`) || !strings.Contains(day, "at 00:30") {
				t.Errorf("the day's list does not list show %s at 00:30", id)
			}
			// by London's turn the day has a show of each cinema
			if tc.name == "London" && (!strings.Contains(day, `colspan="9">`+f.shanghaiN+" <span") || !strings.Contains(day, "Times are each show&#39;s cinema&#39;s: ")) {
				t.Errorf("the day's list of two cinemas' shows does not head each cinema's shows with its name and zone")
			}
		})
	}
}
