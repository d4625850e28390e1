package web

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

// roomOf reads a show's waiting room as the public and the staff JSON see it: the
// show's "waiting_room" (GET /api/v1/shows/{id}) and the room's "waiting_room" and
// "admit_per_minute" (GET /api/v1/admin/shows/{id}/waiting-room).
func (a *testApp) roomOf(t *testing.T, staff, show string) (public, on bool, pace int) {
	t.Helper()
	r := a.do("GET", "/api/v1/shows/"+show, "", nil, nil)
	var s struct {
		WaitingRoom *bool `json:"waiting_room"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &s) != nil || s.WaitingRoom == nil {
		t.Fatalf("GET /api/v1/shows/%s: %d %s", show, r.status, r.body)
	}
	r = a.do("GET", "/api/v1/admin/shows/"+show+"/waiting-room", staff, nil, nil)
	var room struct {
		WaitingRoom    *bool `json:"waiting_room"`
		AdmitPerMinute int   `json:"admit_per_minute"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &room) != nil || room.WaitingRoom == nil {
		t.Fatalf("GET /api/v1/admin/shows/%s/waiting-room: %d %s", show, r.status, r.body)
	}
	return *s.WaitingRoom, *room.WaitingRoom, room.AdmitPerMinute
}

// showUpdates counts a show's "show.update" audit entries.
func (a *testApp) showUpdates(t *testing.T, show string) int {
	t.Helper()
	var n int
	if err := a.DB.GetContext(context.Background(), &n, `SELECT COUNT(*) FROM audit_log
		WHERE entity = 'show' AND entity_id = ? AND action = 'show.update'`, show); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestAdminShows_WaitingRoomForm drives a show's waiting room from the console without
// JavaScript: the show's page has the room's panel (off, the default pace) and its form;
// turning it on at a pace shows in the public show and the staff JSON and marks the
// show in its day's list; a new pace applies; a pace out of 1..100000 or not a whole
// number is refused with the input kept and changes nothing; turning it off keeps the
// pace; the figures refresh alone (?part=waiting-room) and count an admitted buyer; a
// customer gets 403 and changes nothing.
func TestAdminShows_WaitingRoomForm(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	s := a.consoleSession(staff)
	p := a.pickCatalog(staff)
	date := a.localDate(21)
	st, loc, body := s.post("/admin/shows", showFormValues(p, p.movie, date, "19:30"))
	m := showURL.FindStringSubmatch(loc)
	if st != 303 || m == nil {
		t.Fatalf("create show: %d %s %s", st, loc, body)
	}
	show := m[1]
	roomURL := "/admin/shows/" + show + "/waiting-room"

	st, page := s.get("/admin/shows/" + show)
	for _, part := range []string{`id="waiting-room"`, `id="room-state">off<`, `id="room-pace">600 buyers a minute<`,
		`id="room-waiting">0<`, `id="room-closed">No<`, `action="` + roomURL + `"`, `name="waiting_room"`,
		`name="admit_per_minute"`, `value="600"`, `hx-get="/admin/shows/` + show + `?part=waiting-room"`} {
		if st != 200 || !strings.Contains(page, part) {
			t.Errorf("the show's page (%d) lacks %q", st, part)
		}
	}
	if public, on, pace := a.roomOf(t, staff, show); public || on || pace != 600 {
		t.Fatalf("a new show's room: public %v, on %v at %d", public, on, pace)
	}

	steps := []struct {
		name     string
		form     url.Values
		status   int
		says     []string // on the page answered, or after the redirect
		on       bool     // the room afterwards
		pace     int
		audited  int // show.update entries added
		listSays bool
	}{
		{"turn on at a pace", url.Values{"waiting_room": {"on"}, "admit_per_minute": {"1200"}}, 303,
			[]string{"The waiting room is on: it admits 1,200 buyers a minute.", `id="room-state">on<`,
				`id="room-pace">1,200 buyers a minute<`}, true, 1200, 1, true},
		{"change the pace", url.Values{"waiting_room": {"on"}, "admit_per_minute": {" 50 "}}, 303,
			[]string{`id="room-pace">50 buyers a minute<`}, true, 50, 1, true},
		{"pace zero", url.Values{"waiting_room": {"on"}, "admit_per_minute": {"0"}}, 400,
			[]string{"The pace must be a whole number of buyers a minute from 1 to 100000.", `value="0"`}, true, 50, 0, true},
		{"pace too fast", url.Values{"waiting_room": {"on"}, "admit_per_minute": {"100001"}}, 400,
			[]string{"The pace must be a whole number", `value="100001"`}, true, 50, 0, true},
		{"pace not a number", url.Values{"waiting_room": {"on"}, "admit_per_minute": {"lots"}}, 400,
			[]string{"The pace must be a whole number", `value="lots"`}, true, 50, 0, true},
		{"pace a fraction", url.Values{"admit_per_minute": {"12.5"}}, 400,
			[]string{"The pace must be a whole number", `value="12.5"`}, true, 50, 0, true},
		{"pace missing", url.Values{"waiting_room": {"on"}}, 400,
			[]string{"The pace must be a whole number"}, true, 50, 0, true},
		{"save unchanged", url.Values{"waiting_room": {"on"}, "admit_per_minute": {"50"}}, 303,
			[]string{"The waiting room is on"}, true, 50, 0, true},
		{"turn off keeps the pace", url.Values{"admit_per_minute": {"50"}}, 303,
			[]string{"The waiting room is off", `id="room-state">off<`}, false, 50, 1, false},
		{"the fastest pace", url.Values{"waiting_room": {"on"}, "admit_per_minute": {"100000"}}, 303,
			[]string{`id="room-pace">100,000 buyers a minute<`}, true, 100000, 1, true},
	}
	for _, c := range steps {
		t.Run(c.name, func(t *testing.T) {
			before := a.showUpdates(t, show)
			st, loc, page := s.post(roomURL, c.form)
			if st != c.status {
				t.Fatalf("status %d, want %d\n%s", st, c.status, page)
			}
			if st == 303 {
				if loc != "/admin/shows/"+show+"?done=waiting-room" {
					t.Fatalf("redirect to %q", loc)
				}
				_, page = s.get(loc)
			} else if !strings.Contains(page, `role="alert"`) {
				t.Errorf("the refusal is not announced as an alert")
			}
			for _, part := range c.says {
				if !strings.Contains(page, part) {
					t.Errorf("the page lacks %q", part)
				}
			}
			public, on, pace := a.roomOf(t, staff, show)
			if public != c.on || on != c.on || pace != c.pace {
				t.Errorf("room: public %v, staff %v at %d; want %v at %d", public, on, pace, c.on, c.pace)
			}
			if n := a.showUpdates(t, show) - before; n != c.audited {
				t.Errorf("show.update entries added: %d, want %d", n, c.audited)
			}
			_, list := s.get("/admin/shows?date=" + date)
			if got := strings.Contains(list, `badge-waiting-room`) && strings.Contains(list, ">Waiting room</span>"); got != c.listSays {
				t.Errorf("the day's list marks the room: %v, want %v", got, c.listSays)
			}
		})
	}

	t.Run("the figures refresh alone and count an admitted buyer", func(t *testing.T) {
		buyer, err := a.Users.Authenticate(context.Background(), a.newUser())
		if err != nil {
			t.Fatal(err)
		}
		id, _ := strconv.ParseInt(show, 10, 64)
		if _, err := a.Rooms.Join(context.Background(), id, buyer.ID); err != nil {
			t.Fatal(err)
		}
		st, part := s.get("/admin/shows/" + show + "?part=waiting-room")
		if st != 200 || strings.Contains(part, "<html") || !strings.HasPrefix(strings.TrimSpace(part), `<div id="waiting-room-figures"`) {
			t.Fatalf("partial: %d\n%s", st, part)
		}
		for _, want := range []string{`id="room-state">on<`, `id="room-admitted-total">1<`, `id="room-admitted-last-minute">1<`,
			`id="room-waiting">0<`, `hx-trigger="every 5s"`} {
			if !strings.Contains(part, want) {
				t.Errorf("the figures lack %q:\n%s", want, part)
			}
		}
		if st, _ := s.get("/admin/shows/999999?part=waiting-room"); st != 404 {
			t.Errorf("figures of no show: %d, want 404", st)
		}
	})

	t.Run("a customer gets 403", func(t *testing.T) {
		c := a.consoleSession(a.newUser())
		if st, _ := c.get("/"); st != 200 || c.csrf == "" {
			t.Fatalf("the customer's home page: %d, form token %v", st, c.csrf != "")
		}
		before := a.showUpdates(t, show)
		st, _, page := c.post(roomURL, url.Values{"admit_per_minute": {"7"}})
		if st != 403 || !strings.Contains(page, "This page is for cinema staff only.") {
			t.Errorf("customer: %d, want the staff-only 403\n%s", st, page)
		}
		if st, page := c.get("/admin/shows/" + show + "?part=waiting-room"); st != 403 || strings.Contains(page, "room-state") {
			t.Errorf("customer reading the figures: %d, want 403", st)
		}
		if _, on, pace := a.roomOf(t, staff, show); !on || pace != 100000 || a.showUpdates(t, show) != before {
			t.Errorf("the customer's post changed the room: on %v at %d", on, pace)
		}
	})
}

// TestAdminShows_NewShowWithWaitingRoom creates shows from the console's new-show form:
// the form offers the waiting room off at the default pace; ticked, the show is created
// with its room on at the pace typed (empty: the default); a bad pace is refused with
// the input kept and nothing created.
func TestAdminShows_NewShowWithWaitingRoom(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	s := a.consoleSession(staff)
	p := a.pickCatalog(staff)

	st, page := s.get("/admin/shows/new")
	for _, part := range []string{`name="waiting_room"`, "High expected demand: turn the waiting room on", `name="admit_per_minute"`, `value="600"`} {
		if st != 200 || !strings.Contains(page, part) {
			t.Errorf("the new-show form (%d) lacks %q", st, part)
		}
	}
	if strings.Contains(page, `name="waiting_room" type="checkbox" value="on" checked`) {
		t.Errorf("the new-show form ticks the waiting room by default")
	}

	day := a.localDate
	cases := []struct {
		name   string
		date   string
		room   string // waiting_room
		pace   string // admit_per_minute
		status int
		on     bool
		want   int
		says   []string
	}{
		{"ticked at a pace", day(30), "on", "900", 303, true, 900, nil},
		{"ticked at the default pace", day(31), "on", "", 303, true, 600, nil},
		{"not ticked", day(32), "", "600", 303, false, 600, nil},
		{"ticked at a pace too fast", day(33), "on", "100001", 400, false, 0,
			[]string{"The pace must be a whole number of buyers a minute from 1 to 100000.", `value="100001"`, `checked`}},
		{"ticked at no number", day(33), "on", "fast", 400, false, 0,
			[]string{"The pace must be a whole number", `value="fast"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := showFormValues(p, p.movie, c.date, "19:30")
			if c.room != "" {
				v.Set("waiting_room", c.room)
			}
			v.Set("admit_per_minute", c.pace)
			before := a.countShows(t)
			st, loc, page := s.post("/admin/shows", v)
			if st != c.status {
				t.Fatalf("status %d, want %d\n%s", st, c.status, page)
			}
			for _, part := range c.says {
				if !strings.Contains(page, part) {
					t.Errorf("the form lacks %q", part)
				}
			}
			if st != 303 {
				if n := a.countShows(t); n != before {
					t.Errorf("a refused form stored shows: %d -> %d", before, n)
				}
				return
			}
			m := showURL.FindStringSubmatch(loc)
			if m == nil {
				t.Fatalf("redirect to %q", loc)
			}
			public, on, pace := a.roomOf(t, staff, m[1])
			if public != c.on || on != c.on || pace != c.want {
				t.Errorf("room: public %v, staff %v at %d; want %v at %d", public, on, pace, c.on, c.want)
			}
		})
	}
}
