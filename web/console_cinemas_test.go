package web

import (
	"net/url"
	"strings"
	"testing"
)

// TestConsoleCinemas: the admin's navigation links the cinemas page (staff's does not);
// the admin adds a cinema and changes it (303 with a notice), a bad time zone, currency
// or a name in use shows the form again with what was typed and changes nothing; the
// users page ticks a staff member's cinemas, which limit them; the new-hall form picks
// the cinema once there are two, and puts the hall in the one picked.
func TestConsoleCinemas(t *testing.T) {
	a := newTestApp(t, nil)
	admin, staff := a.demoToken("admin"), a.demoToken("staff")
	if p := a.getPage("/admin", admin); !strings.Contains(string(p.body), `href="/admin/cinemas"`) {
		t.Errorf("the admin's console links no cinemas page")
	}
	if p := a.getPage("/admin", staff); strings.Contains(string(p.body), `href="/admin/cinemas"`) {
		t.Errorf("staff's console links the cinemas page")
	}
	if p := a.getPage("/admin/halls/new", admin); strings.Contains(string(p.body), `name="cinema_id"`) {
		t.Errorf("a one-cinema install's hall form asks for the cinema")
	}
	cinemas := func() int { return a.count("SELECT COUNT(*) FROM cinemas") }
	before := cinemas()
	for _, tc := range []struct {
		name   string
		vals   url.Values
		status int
		want   string
	}{
		{"unknown zone", url.Values{"name": {"Riverside"}, "time_zone": {"Mars/Olympus"}, "currency": {"CNY"}}, 400, "Mars/Olympus"},
		{"bad currency", url.Values{"name": {"Riverside"}, "time_zone": {"Asia/Shanghai"}, "currency": {"XX"}}, 400, "currency"},
		{"not money", url.Values{"name": {"Riverside"}, "time_zone": {"Asia/Shanghai"}, "currency": {"XAU"}}, 400, "XAU"},
		{"zone message in words", url.Values{"name": {"Riverside"}, "time_zone": {"Nowhere/Else"}, "currency": {"CNY"}}, 400, "Time zone &#34;Nowhere/Else&#34;"},
		{"blank name", url.Values{"name": {" "}, "time_zone": {"Asia/Shanghai"}, "currency": {"CNY"}}, 400, "name"},
		{"added", url.Values{"name": {"Riverside"}, "time_zone": {"Asia/Shanghai"}, "currency": {"CNY"}}, 303, ""},
		{"name in use", url.Values{"name": {"Riverside"}, "time_zone": {"Europe/London"}, "currency": {"GBP"}}, 409, "Riverside"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := cinemas()
			r := a.postPage("/admin/cinemas", "/admin/cinemas", admin, tc.vals)
			if r.status != tc.status || !strings.Contains(string(r.body), tc.want) {
				t.Fatalf("-> %d, want %d with %q: %.400s", r.status, tc.status, tc.want, r.body)
			}
			if grew := cinemas() - n; grew != map[bool]int{true: 1, false: 0}[tc.status == 303] {
				t.Errorf("%d cinemas added", grew)
			}
		})
	}
	if cinemas() != before+1 {
		t.Fatalf("cinemas: %d, want %d", cinemas(), before+1)
	}
	var b string
	if err := a.DB.Get(&b, "SELECT id FROM cinemas WHERE name = 'Riverside'"); err != nil {
		t.Fatal(err)
	}
	t.Run("change", func(t *testing.T) {
		r := a.postPage("/admin/cinemas", "/admin/cinemas/"+b, admin, url.Values{"name": {"Riverside Shanghai"}, "time_zone": {"Asia/Shanghai"}, "currency": {"CNY"}})
		if r.status != 303 || !strings.HasPrefix(r.header.Get("Location"), "/admin/cinemas?saved="+b) {
			t.Fatalf("-> %d %s", r.status, r.header.Get("Location"))
		}
		if p := a.getPage(r.header.Get("Location"), admin); !strings.Contains(string(p.body), "Saved Riverside Shanghai.") {
			t.Errorf("no notice: %.300s", p.body)
		}
		if r := a.postPage("/admin/cinemas", "/admin/cinemas/999999", admin, url.Values{"name": {"X"}, "time_zone": {"UTC"}, "currency": {"EUR"}}); r.status != 404 {
			t.Errorf("unknown cinema -> %d", r.status)
		}
	})
	t.Run("staff limited on the users page", func(t *testing.T) {
		tok, uid := a.registerAs("site-manager-" + b + "@example.test")
		if r := a.do("PATCH", "/api/v1/admin/users/"+uid, admin, map[string]string{"role": "staff"}, nil); r.status != 200 {
			t.Fatalf("make staff: %d %s", r.status, r.body)
		}
		page := a.getPage("/admin/users", admin)
		action := `action="/admin/users/` + uid + `/cinemas"`
		if !strings.Contains(string(page.body), action) || !strings.Contains(string(page.body), "Riverside Shanghai") {
			t.Fatalf("no cinemas form for the staff member")
		}
		r := a.postPage("/admin/users", "/admin/users/"+uid+"/cinemas", admin, url.Values{"cinema_id": {b}})
		if r.status != 303 {
			t.Fatalf("-> %d %.300s", r.status, r.body)
		}
		if got := a.count("SELECT COUNT(*) FROM staff_cinemas WHERE user_id = ? AND cinema_id = ?", uid, b); got != 1 {
			t.Errorf("staff_cinemas rows: %d", got)
		}
		if r := a.postPage("/admin/users", "/admin/users/"+uid+"/cinemas", admin, url.Values{"cinema_id": {"999999"}}); r.status != 404 {
			t.Errorf("unknown cinema -> %d", r.status)
		}
		// the limited staff member's hall form offers only their cinema, and a new hall goes in it
		form := a.getPage("/admin/halls/new", tok)
		if strings.Contains(string(form.body), `name="cinema_id"`) {
			t.Errorf("a staff member of one cinema is asked for the cinema")
		}
		if r := a.postPage("/admin/halls/new", "/admin/halls", tok, url.Values{"name": {"River 1"}, "layout": {"SSSS"}}); r.status != 303 {
			t.Fatalf("new hall -> %d %.300s", r.status, r.body)
		}
		if got := a.count("SELECT COUNT(*) FROM halls WHERE name = 'River 1' AND cinema_id = ?", b); got != 1 {
			t.Errorf("the hall is not in the staff member's cinema")
		}
		if r := a.postPage("/admin/users", "/admin/users/"+uid+"/cinemas", admin, url.Values{}); r.status != 303 ||
			a.count("SELECT COUNT(*) FROM staff_cinemas WHERE user_id = ?", uid) != 0 {
			t.Errorf("no box ticked -> %d, want every cinema again", r.status)
		}
	})
	t.Run("the admin's hall form picks the cinema", func(t *testing.T) {
		form := a.getPage("/admin/halls/new", admin)
		if !strings.Contains(string(form.body), `name="cinema_id"`) {
			t.Fatalf("no cinema picker with two cinemas")
		}
		if r := a.postPage("/admin/halls/new", "/admin/halls", admin, url.Values{"cinema_id": {b}, "name": {"River 2"}, "layout": {"SSSS"}}); r.status != 303 {
			t.Fatalf("new hall -> %d %.300s", r.status, r.body)
		}
		if got := a.count("SELECT COUNT(*) FROM halls WHERE name = 'River 2' AND cinema_id = ?", b); got != 1 {
			t.Errorf("the hall is not in the cinema picked")
		}
	})
	t.Run("each cinema's id, local offset, halls and limited staff", func(t *testing.T) {
		if _, uid := a.registerAs("counted-" + b + "@example.test"); a.do("PATCH", "/api/v1/admin/users/"+uid, admin, map[string]any{"role": "staff", "cinema_ids": []string{b}}, nil).status != 200 {
			t.Fatal("limit a staff member to Riverside")
		}
		p := string(a.getPage("/admin/cinemas", admin).body)
		i := strings.Index(p, `id="cinema-`+b+`"`)
		if i < 0 {
			t.Fatalf("no card of cinema %s", b)
		}
		card := p[i:]
		if j := strings.Index(card, "</li>"); j > 0 {
			card = card[:j]
		}
		for _, want := range []string{"<dd data-cinema-id>" + b + "</dd>", "<dd data-cinema-offset>UTC+08:00 now</dd>",
			"<dd data-cinema-halls>2</dd>", "<dd data-cinema-staff>1</dd>"} {
			if !strings.Contains(card, want) {
				t.Errorf("Riverside's card lacks %s:\n%s", want, card)
			}
		}
		if strings.Contains(p, "Time_zone") {
			t.Error("the page shows a field name as the API spells it")
		}
	})
}
