package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// postHallForm loads page as the signed-in session (token) for its CSRF token and
// cookie, then posts vals (plus the token) to target as a browser form would.
func (a *testApp) postHallForm(page, target, token string, vals url.Values) apiResp {
	a.t.Helper()
	p := a.do("GET", page, "", nil, map[string]string{"Cookie": "sf_session=" + token})
	if p.status != 200 {
		a.t.Fatalf("GET %s: %d", page, p.status)
	}
	m := regexp.MustCompile(`name="_csrf" value="([^"]+)"`).FindStringSubmatch(string(p.body))
	if m == nil {
		a.t.Fatalf("no CSRF token on %s", page)
	}
	vals.Set("_csrf", m[1])
	req, err := http.NewRequest("POST", a.base+target, strings.NewReader(vals.Encode()))
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for _, c := range p.header.Values("Set-Cookie") {
		req.Header.Add("Cookie", strings.SplitN(c, ";", 2)[0])
	}
	req.Header.Add("Cookie", "sf_session="+token)
	res, err := noRedirect.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return apiResp{status: res.StatusCode, body: b, header: res.Header}
}

// hallOfShow returns the hall id of a show.
func (a *testApp) hallOfShow(show string) string {
	a.t.Helper()
	r := a.do("GET", "/api/v1/shows/"+show, "", nil, nil)
	var v struct {
		Hall struct{ ID string } `json:"hall"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &v) != nil || v.Hall.ID == "" {
		a.t.Fatalf("show %s: %d %s", show, r.status, r.body)
	}
	return v.Hall.ID
}

func TestAdminHalls_API(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	type hallOut struct {
		ID, Name, Numbering string
		Rows, Cols, Seats   int
		Blocked             int
		Layout              *string
		Zones               []struct {
			Code  string
			Seats int
		}
	}
	decode := func(r apiResp, status int) hallOut {
		t.Helper()
		var h hallOut
		if r.status != status || json.Unmarshal(r.body, &h) != nil {
			t.Fatalf("want %d and a hall: %d %s", status, r.status, r.body)
		}
		return h
	}

	t.Run("demo halls open as layout text", func(t *testing.T) {
		r := a.do("GET", "/api/v1/admin/halls", staff, nil, nil)
		var list struct{ Halls []struct{ ID, Name string } }
		if json.Unmarshal(r.body, &list) != nil || len(list.Halls) < 3 {
			t.Fatalf("halls: %s", r.body)
		}
		for _, lh := range list.Halls {
			h := decode(a.do("GET", "/api/v1/admin/halls/"+lh.ID, staff, nil, nil), 200)
			if h.Layout == nil || strings.Count(*h.Layout, "\n") != h.Rows {
				t.Errorf("%s has no layout text: %+v", lh.Name, h)
			}
		}
	})

	created := decode(a.do("POST", "/api/v1/admin/halls", staff, map[string]string{"name": "Studio API", "layout": "WCSS.SS\nPPPP.PP", "numbering": "rtl"}, nil), 201)
	if created.Rows != 2 || created.Cols != 7 || created.Seats != 12 || created.Numbering != "rtl" || *created.Layout != "WCSS.SS\nPPPP.PP\n" {
		t.Errorf("created %+v", created)
	}
	cases := []struct {
		name, method, path string
		body               any
		status             int
		code, says         string
	}{
		{"bad layout", "POST", "/api/v1/admin/halls", map[string]string{"name": "X", "layout": "SS\nS?S"}, 400, "INVALID_REQUEST", "line 2, column 2: '?' is not a layout character"},
		{"missing layout", "POST", "/api/v1/admin/halls", map[string]string{"name": "X"}, 400, "INVALID_REQUEST", "required"},
		{"layout not a string", "POST", "/api/v1/admin/halls", map[string]any{"name": "X", "layout": 5}, 400, "INVALID_REQUEST", "layout must be a string"},
		{"unknown field", "POST", "/api/v1/admin/halls", map[string]any{"name": "X", "layout": "S", "rows": 5}, 400, "INVALID_REQUEST", "does not know"},
		{"duplicate name", "POST", "/api/v1/admin/halls", map[string]string{"name": "studio api", "layout": "S"}, 409, "CONFLICT", "already exists"},
		{"unknown hall", "GET", "/api/v1/admin/halls/99999999", nil, 404, "NOT_FOUND", ""},
		{"patch unknown hall", "PATCH", "/api/v1/admin/halls/99999999", map[string]string{"name": "Y"}, 404, "NOT_FOUND", ""},
		{"patch bad numbering", "PATCH", "/api/v1/admin/halls/" + created.ID, map[string]string{"numbering": "up"}, 400, "INVALID_REQUEST", "numbering must be"},
		{"customer", "GET", "/api/v1/admin/halls/" + created.ID, nil, 403, "FORBIDDEN", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok := staff
			if c.name == "customer" {
				tok = a.newUser()
			}
			r := a.do(c.method, c.path, tok, c.body, nil)
			if r.status != c.status || r.code() != c.code || !strings.Contains(string(r.body), c.says) {
				t.Errorf("%d %s, want %d %s saying %q", r.status, r.body, c.status, c.code, c.says)
			}
		})
	}

	renamed := decode(a.do("PATCH", "/api/v1/admin/halls/"+created.ID, staff, map[string]string{"name": "Studio API 2"}, nil), 200)
	if renamed.Name != "Studio API 2" || *renamed.Layout != *created.Layout || renamed.Numbering != "rtl" {
		t.Errorf("renamed %+v", renamed)
	}
	grown := decode(a.do("PATCH", "/api/v1/admin/halls/"+created.ID, staff, map[string]string{"layout": "WCSS.SS\nPPPP.PP\nVVVV.VV"}, nil), 200)
	if grown.Rows != 3 || grown.Seats != 18 || grown.Zones[len(grown.Zones)-1].Code != "vip" {
		t.Errorf("grown %+v", grown)
	}

	t.Run("a new zone needs a price for the hall's shows", func(t *testing.T) {
		var hallID, showID int64
		if err := a.DB.Get(&hallID, "SELECT id FROM halls WHERE name = 'Hall 1'"); err != nil {
			t.Fatal(err)
		}
		if err := a.DB.Get(&showID, "SELECT id FROM shows WHERE hall_id = ? AND starts_at > ? AND status <> 'cancelled' ORDER BY starts_at LIMIT 1",
			hallID, a.clock.Now()); err != nil {
			t.Fatal(err)
		}
		path := "/api/v1/admin/halls/" + strconv.FormatInt(hallID, 10)
		cur := decode(a.do("GET", path, staff, nil, nil), 200)
		layout := *cur.Layout + "VVVVVVVVVV\n"
		bad := []struct {
			name   string
			body   any
			status int
			says   string
		}{
			{"no price", map[string]any{"layout": layout}, 409, "(vip)"},
			{"no price, the many shows counted", map[string]any{"layout": layout}, 409, " more; give each such zone a price"},
			{"a price of a zone not in the layout", map[string]any{"layout": layout, "prices": []map[string]any{{"zone": "vip", "price_minor": 9000}, {"zone": "premium", "price_minor": 1}}}, 400, `zone \"premium\" is not a zone`},
			{"prices not a list", map[string]any{"layout": layout, "prices": "vip"}, 400, "prices must be a list"},
			{"a price not a whole number", map[string]any{"layout": layout, "prices": []map[string]any{{"zone": "vip", "price_minor": 90.5}}}, 400, "price_minor must be a whole number"},
		}
		for _, c := range bad {
			if r := a.do("PATCH", path, staff, c.body, nil); r.status != c.status || !strings.Contains(string(r.body), c.says) {
				t.Errorf("%s: %d %s, want %d saying %s", c.name, r.status, r.body, c.status, c.says)
			}
		}
		if r := a.do("POST", "/api/v1/admin/halls", staff, map[string]any{"name": "Priced New", "layout": "VV", "prices": []map[string]any{{"zone": "vip", "price_minor": 1}}}, nil); r.status != 400 {
			t.Errorf("a new hall with prices: %d %s", r.status, r.body)
		}
		decode(a.do("PATCH", path, staff, map[string]any{"layout": layout, "prices": []map[string]any{{"zone": "vip", "price_minor": 9000}}}, nil), 200)
		r := a.do("GET", "/api/v1/shows/"+strconv.FormatInt(showID, 10), "", nil, nil)
		if !strings.Contains(string(r.body), `"code":"vip"`) || !strings.Contains(string(r.body), `"price_minor":9000`) {
			t.Errorf("the show after the priced change: %s", r.body)
		}
	})

	t.Run("a rename never undoes a layout change made at the same time", func(t *testing.T) {
		path := "/api/v1/admin/halls/" + created.ID
		for round := 0; round < 15; round++ {
			decode(a.do("PATCH", path, staff, map[string]string{"layout": "SSSS\nSSSS\nSSSS"}, nil), 200)
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); a.do("PATCH", path, staff, map[string]string{"layout": "SSSS\nSSSS"}, nil) }()
			go func() {
				defer wg.Done()
				a.do("PATCH", path, staff, map[string]string{"name": "Studio API " + strconv.Itoa(round)}, nil)
			}()
			wg.Wait()
			if h := decode(a.do("GET", path, staff, nil, nil), 200); h.Rows != 2 || h.Name != "Studio API "+strconv.Itoa(round) {
				t.Fatalf("round %d: %d rows, name %q; want the 2-row layout and the new name", round, h.Rows, h.Name)
			}
		}
	})

	t.Run("a held seat refuses the change, naming the show", func(t *testing.T) {
		show, seats := a.onSaleShow(1)
		if r := a.do("POST", "/api/v1/shows/"+show+"/orders", a.newUser(), map[string]any{"seat_ids": seats}, nil); r.status != 201 {
			t.Fatalf("order: %d %s", r.status, r.body)
		}
		hall := a.hallOfShow(show)
		r := a.do("PATCH", "/api/v1/admin/halls/"+hall, staff, map[string]string{"layout": "S"}, nil)
		var e struct {
			Error struct {
				Code, Message string
				Seats         []string
			}
		}
		if r.status != 409 || json.Unmarshal(r.body, &e) != nil || e.Error.Code != "CONFLICT" || len(e.Error.Seats) == 0 ||
			!strings.Contains(e.Error.Message, " held") || !strings.Contains(e.Error.Message, "shows that have not started") {
			t.Fatalf("want 409 CONFLICT naming the show: %d %s", r.status, r.body)
		}
		if got := a.seatState(show, seats[0]); got != "held" {
			t.Errorf("seat is %s after the refused change", got)
		}
	})
}

func TestAdminHalls_Pages(t *testing.T) {
	a := newTestApp(t, nil)
	staff := a.demoToken("staff")
	cookie := map[string]string{"Cookie": "sf_session=" + staff}
	get := func(path string) apiResp { return a.do("GET", path, "", nil, cookie) }

	list := get("/admin/halls")
	if list.status != 200 || !strings.Contains(string(list.body), "Hall 1") || !strings.Contains(string(list.body), "8 × 10") {
		t.Fatalf("list: %d %s", list.status, list.body)
	}
	form := get("/admin/halls/new")
	if form.status != 200 || !strings.Contains(string(form.body), `<textarea id="layout" name="layout"`) ||
		!strings.Contains(string(form.body), "wheelchair space") || !strings.Contains(string(form.body), `hx-post="/admin/halls/preview"`) {
		t.Fatalf("new form: %d %s", form.status, form.body)
	}

	steps := []struct {
		name   string
		target string
		vals   url.Values
		status int
		says   []string
	}{
		{"preview without JavaScript", "/admin/halls", url.Values{"name": {"Studio P"}, "layout": {"SS.SS\nPP.PP"}, "action": {"preview"}}, 200,
			[]string{"8 seats", "Standard 4", "Premium 4", `value="Studio P"`, "SS.SS\nPP.PP</textarea>"}},
		{"preview names line and column", "/admin/halls", url.Values{"name": {"Studio P"}, "layout": {"SS\nS#"}, "action": {"preview"}}, 200,
			[]string{"line 2, column 2: &#39;#&#39; is not a layout character"}},
		{"save with a bad layout keeps the input", "/admin/halls", url.Values{"name": {"Studio P"}, "layout": {"SS\nS#"}, "action": {"save"}}, 400,
			[]string{"The layout has a problem: line 2, column 2", `value="Studio P"`, "SS\nS#</textarea>"}},
		{"save an empty layout says so", "/admin/halls", url.Values{"name": {"Studio E"}, "layout": {""}, "action": {"save"}}, 400,
			[]string{"The layout is empty: add at least one row of seats"}},
		{"save with a blank name", "/admin/halls", url.Values{"name": {" "}, "layout": {"SS"}, "action": {"save"}}, 400,
			[]string{"Name must be 1 to 100 characters"}},
		{"save a name in use", "/admin/halls", url.Values{"name": {"hall 1"}, "layout": {"SS"}, "action": {"save"}}, 409,
			[]string{"already exists", "SS</textarea>"}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			r := a.postHallForm("/admin/halls/new", s.target, staff, s.vals)
			if r.status != s.status {
				t.Fatalf("%d, want %d: %s", r.status, s.status, r.body)
			}
			for _, w := range s.says {
				if !strings.Contains(string(r.body), w) {
					t.Errorf("page does not say %q", w)
				}
			}
		})
	}

	saved := a.postHallForm("/admin/halls/new", "/admin/halls", staff, url.Values{"name": {"Studio P"}, "layout": {"SS.SS\r\nPP.PP\r\n"}, "numbering": {"rtl"}, "action": {"save"}})
	loc := saved.header.Get("Location")
	if saved.status != 303 || !strings.HasPrefix(loc, "/admin/halls?saved=") {
		t.Fatalf("save: %d %s", saved.status, loc)
	}
	id := strings.TrimPrefix(loc, "/admin/halls?saved=")
	if l := get(loc); !strings.Contains(string(l.body), "Saved hall Studio P") || !strings.Contains(string(l.body), `href="/admin/halls/`+id+`"`) {
		t.Errorf("list after save: %s", l.body)
	}
	edit := get("/admin/halls/" + id)
	if edit.status != 200 || !strings.Contains(string(edit.body), "SS.SS\nPP.PP\n</textarea>") || !strings.Contains(string(edit.body), `value="rtl" selected`) {
		t.Errorf("edit page: %d %s", edit.status, edit.body)
	}
	if r := a.postHallForm("/admin/halls/"+id, "/admin/halls/"+id, staff, url.Values{"name": {"Studio Q"}, "layout": {"SS.SS\nPP.PP\nVV"}, "numbering": {"ltr"}, "action": {"save"}}); r.status != 303 {
		t.Errorf("update: %d %s", r.status, r.body)
	}
	if r := a.do("GET", "/api/v1/admin/halls/"+id, staff, nil, nil); !strings.Contains(string(r.body), `"name":"Studio Q"`) || !strings.Contains(string(r.body), `"layout":"SS.SS\nPP.PP\nVV\n"`) {
		t.Errorf("after update: %s", r.body)
	}

	t.Run("htmx preview partial", func(t *testing.T) {
		r := a.postHallForm("/admin/halls/new", "/admin/halls/preview", staff, url.Values{"layout": {"WCSB\n\nVVV"}})
		body := string(r.body)
		if r.status != 200 || strings.Contains(body, "<html") || !strings.Contains(body, "6 seats") || !strings.Contains(body, "VIP 3") ||
			!strings.Contains(body, "blocked 1") || !strings.Contains(body, `title="A1 · Standard · wheelchair space"`) {
			t.Errorf("preview: %d %s", r.status, body)
		}
		r = a.postHallForm("/admin/halls/new", "/admin/halls/preview", staff, url.Values{"layout": {"S\nSSx"}})
		if r.status != 200 || !strings.Contains(string(r.body), "line 2, column 3") {
			t.Errorf("preview of a bad layout: %d %s", r.status, r.body)
		}
	})

	t.Run("a sold-out change is refused on the form with the input kept", func(t *testing.T) {
		show, seats := a.onSaleShow(1)
		if r := a.do("POST", "/api/v1/shows/"+show+"/orders", a.newUser(), map[string]any{"seat_ids": seats}, nil); r.status != 201 {
			t.Fatalf("order: %d %s", r.status, r.body)
		}
		hall := a.hallOfShow(show)
		r := a.postHallForm("/admin/halls/"+hall, "/admin/halls/"+hall, staff, url.Values{"name": {"Renamed"}, "layout": {"S"}, "action": {"save"}})
		if r.status != 409 || !strings.Contains(string(r.body), "held, sold or kept as house seats for shows that have not started") || !strings.Contains(string(r.body), `value="Renamed"`) {
			t.Errorf("refused change: %d %s", r.status, r.body)
		}
	})
	t.Run("a new zone is priced on the form", func(t *testing.T) {
		var hallID int64
		if err := a.DB.Get(&hallID, "SELECT id FROM halls WHERE name = 'Hall 1'"); err != nil {
			t.Fatal(err)
		}
		path := "/admin/halls/" + strconv.FormatInt(hallID, 10)
		if r := get(path); !strings.Contains(string(r.body), "Prices for new zones") || !strings.Contains(string(r.body), `name="price_vip"`) {
			t.Fatalf("edit form without new-zone prices: %s", r.body)
		}
		layout := strings.Repeat("SSSSSSSSSS\n", 8) + "VVVVVVVVVV\n"
		vals := func(vip string) url.Values {
			return url.Values{"name": {"Hall 1"}, "layout": {layout}, "numbering": {"ltr"}, "price_vip": {vip}, "action": {"save"}}
		}
		if r := a.postHallForm(path, path, staff, vals("")); r.status != 409 || !strings.Contains(string(r.body), "have no price for") ||
			!strings.Contains(string(r.body), "(vip)") {
			t.Errorf("without a price: %d %s", r.status, r.body)
		}
		if r := a.postHallForm(path, path, staff, vals("ninety")); r.status != 400 || !strings.Contains(string(r.body), "The price of zone VIP must be an amount") ||
			!strings.Contains(string(r.body), `value="ninety"`) {
			t.Errorf("a price that is no amount: %d %s", r.status, r.body)
		}
		if r := a.postHallForm(path, path, staff, vals("90")); r.status != 303 {
			t.Errorf("with a price: %d %s", r.status, r.body)
		}
	})
	if st := a.page("/admin/halls/99999999", staff); st != 404 {
		t.Errorf("unknown hall page: %d", st)
	}
}

// TestAdminHalls_Browser: staff opens the new-hall form, types a layout, sees the
// preview follow as they type (htmx), saves and finds the hall in the list.
func TestAdminHalls_Browser(t *testing.T) {
	a := newTestApp(t, nil)
	acc := a.accounts["staff"]
	ctx := newBrowser(t)
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	if err := chromedp.Do(ctx,
		chromedp.Navigate(a.base+"/admin/halls/new"),
		chromedp.WaitVisible(css(`#email`)),
		chromedp.SendKeys(css(`#email`), acc.Email),
		chromedp.SendKeys(css(`#password`), acc.Password),
		chromedp.Submit(css(`#password`)),
		chromedp.WaitVisible(css(`#layout`)),
	); err != nil {
		t.Fatalf("sign in and open the form: %v", err)
	}
	screenshot(t, ctx, "admin-halls-new")
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(document.querySelector('#layout').value = '', true)`)); err != nil {
		t.Fatalf("clear the sample layout: %v", err)
	}
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(css(`#name`), "Studio Browser"),
		chromedp.SendKeys(css(`#layout`), "SSSS.SSSS\nSSSS.SSSS\nPPPP.PPPP\nWCSx"),
		chromedp.WaitVisible(css(`#layout-preview .layout-problems`)),
	); err != nil {
		t.Fatalf("type a bad layout: %v", err)
	}
	_, preview := browserAt(t, ctx, `#layout-preview`)
	screenshot(t, ctx, "admin-halls-preview-error")
	if !strings.Contains(preview, "line 4, column 4: 'x' is not a layout character") {
		t.Errorf("preview of a bad layout: %s", preview)
	}
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(css(`#layout`), "\b.SCW"),
		chromedp.WaitVisible(css(`#layout-preview .hall-preview`)),
	); err != nil {
		t.Fatalf("fix the layout: %v", err)
	}
	_, preview = browserAt(t, ctx, `#layout-preview`)
	screenshot(t, ctx, "admin-halls-preview")
	if !strings.Contains(preview, "30 seats") || !strings.Contains(preview, "Premium 8") {
		t.Errorf("preview: %s", preview)
	}
	if err := chromedp.Do(ctx,
		chromedp.Click(css(`button[value="save"]`)),
		chromedp.WaitVisible(css(`.success`)),
	); err != nil {
		t.Fatalf("save: %v", err)
	}
	loc, main := browserAt(t, ctx, `main`)
	screenshot(t, ctx, "admin-halls-list")
	if !strings.Contains(loc, "/admin/halls?saved=") || !strings.Contains(main, "Saved hall Studio Browser") || !strings.Contains(main, "4 × 9") {
		t.Errorf("after save: %s\n%s", loc, main)
	}
	var n int
	if err := a.DB.GetContext(context.Background(), &n, "SELECT COUNT(*) FROM seats s JOIN halls h ON h.id = s.hall_id WHERE h.name = 'Studio Browser'"); err != nil || n != 30 {
		t.Errorf("seats stored: %d %v", n, err)
	}
}
