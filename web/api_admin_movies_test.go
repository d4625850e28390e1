package web

import (
	"strings"
	"testing"
	"time"
)

// TestAdminMovies_API drives editing and retiring movies through the admin API: roles,
// a partial PATCH, bad bodies, a runtime change refused while the movie has an
// upcoming show, retire refusing new shows and un-retire offering the movie again.
func TestAdminMovies_API(t *testing.T) {
	a := newTestApp(t, nil)
	staff, buyer := a.demoToken("staff"), a.newUser()
	r := a.do("POST", "/api/v1/admin/movies", staff, map[string]any{"title": "API Movie", "runtime_min": 90}, nil)
	if r.status != 201 {
		t.Fatalf("create movie: %d %s", r.status, r.body)
	}
	movie := r.json(t)["id"].(string)
	path := "/api/v1/admin/movies/" + movie

	for _, e := range []struct{ method, path string }{{"PATCH", path}, {"POST", path + "/retire"}, {"POST", path + "/unretire"}} {
		if r := a.do(e.method, e.path, "", map[string]any{"title": "X"}, nil); r.status != 401 {
			t.Errorf("anonymous %s %s: %d", e.method, e.path, r.status)
		}
		if r := a.do(e.method, e.path, buyer, map[string]any{"title": "X"}, nil); r.status != 403 {
			t.Errorf("customer %s %s: %d", e.method, e.path, r.status)
		}
	}
	r = a.do("PATCH", path, staff, map[string]any{"runtime_min": 100}, nil)
	if got := r.json(t); r.status != 200 || got["title"] != "API Movie" || got["runtime_min"] != 100.0 || got["retired"] != false || got["upcoming_shows"] != 0.0 {
		t.Fatalf("PATCH runtime: %d %s", r.status, r.body)
	}
	for _, bad := range []struct {
		path string
		body any
		want int
	}{
		{path, map[string]any{"runtime_min": 0}, 400},
		{path, map[string]any{"runtime_min": "100"}, 400},
		{path, map[string]any{"title": 7}, 400},
		{path, map[string]any{"title": "  "}, 400},
		{path, map[string]any{"colour": "red"}, 400},
		{"/api/v1/admin/movies/987654", map[string]any{"title": "Nobody"}, 404},
		{"/api/v1/admin/movies/x1", map[string]any{"title": "Nobody"}, 404},
	} {
		if r := a.do("PATCH", bad.path, staff, bad.body, nil); r.status != bad.want {
			t.Errorf("PATCH %s %v: %d %s, want %d", bad.path, bad.body, r.status, r.body, bad.want)
		}
	}

	p := a.pickCatalog(staff)
	p.movie = movie
	now := a.clock.Now().Truncate(time.Second)
	starts := now.AddDate(0, 0, 40).Truncate(time.Hour)
	if r := a.do("POST", "/api/v1/admin/shows", staff, p.showBody(starts, now, starts, 3000), nil); r.status != 201 {
		t.Fatalf("create show: %d %s", r.status, r.body)
	}
	if r := a.do("PATCH", path, staff, map[string]any{"runtime_min": 120}, nil); r.status != 409 || r.code() != "CONFLICT" || !strings.Contains(string(r.body), "upcoming shows") {
		t.Errorf("runtime change with an upcoming show: %d %s", r.status, r.body)
	}
	if r := a.do("PATCH", path, staff, map[string]any{"title": "API Movie Renamed"}, nil); r.status != 200 || r.json(t)["upcoming_shows"] != 1.0 {
		t.Errorf("rename with an upcoming show: %d %s", r.status, r.body)
	}

	r = a.do("POST", path+"/retire", staff, nil, nil)
	if got := r.json(t); r.status != 200 || got["retired"] != true || got["retired_at"] == nil {
		t.Fatalf("retire: %d %s", r.status, r.body)
	}
	later := starts.AddDate(0, 0, 1)
	if r := a.do("POST", "/api/v1/admin/shows", staff, p.showBody(later, now, later, 3000), nil); r.status != 409 || !strings.Contains(string(r.body), "retired") {
		t.Errorf("a show of a retired movie: %d %s", r.status, r.body)
	}
	r = a.do("POST", path+"/unretire", staff, nil, nil)
	if got := r.json(t); r.status != 200 || got["retired"] != false || got["retired_at"] != nil {
		t.Fatalf("unretire: %d %s", r.status, r.body)
	}
	if r := a.do("POST", "/api/v1/admin/shows", staff, p.showBody(later, now, later, 3000), nil); r.status != 201 {
		t.Errorf("a show of an un-retired movie: %d %s", r.status, r.body)
	}
	if r := a.do("POST", "/api/v1/admin/movies/987654/retire", staff, nil, nil); r.status != 404 {
		t.Errorf("retire an unknown movie: %d %s", r.status, r.body)
	}
}
