package web

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestAPI_SeatMapGzip: a client that accepts gzip gets the seat map gzipped (the same
// JSON once inflated); one that sends no Accept-Encoding gets it plain; both answers
// say they vary on Accept-Encoding.
func TestAPI_SeatMapGzip(t *testing.T) {
	a := newTestApp(t, nil)
	show, _ := a.onSaleShow(1)
	get := func(enc string) (*http.Response, []byte) {
		req, _ := http.NewRequest("GET", a.base+"/api/v1/shows/"+show+"/seats", nil)
		if enc != "" {
			req.Header.Set("Accept-Encoding", enc)
		}
		res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, b
	}
	plainRes, plain := get("")
	if plainRes.StatusCode != 200 || plainRes.Header.Get("Content-Encoding") != "" || !json.Valid(plain) {
		t.Fatalf("without Accept-Encoding: %d %q %.80s", plainRes.StatusCode, plainRes.Header.Get("Content-Encoding"), plain)
	}
	gzRes, gz := get("gzip, deflate, br")
	if gzRes.StatusCode != 200 || gzRes.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("with gzip accepted: %d, Content-Encoding %q", gzRes.StatusCode, gzRes.Header.Get("Content-Encoding"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	inflated, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(inflated, plain) {
		t.Errorf("the gzipped map differs from the plain one (%d vs %d bytes)", len(inflated), len(plain))
	}
	if len(gz) >= len(plain) {
		t.Errorf("gzip did not shrink the map: %d of %d bytes", len(gz), len(plain))
	}
	for _, res := range []*http.Response{plainRes, gzRes} {
		if !strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") {
			t.Errorf("Vary %q lacks Accept-Encoding", res.Header.Get("Vary"))
		}
	}
}

// TestAPI_SeatMapReadsYourOwnHold: right after a buyer's order, the buyer's own read
// of the seat map shows the seats held, even though anonymous readers may be served a
// map up to a tenth of a second old.
func TestAPI_SeatMapReadsYourOwnHold(t *testing.T) {
	a := newTestApp(t, nil)
	show, seats := a.onSaleShow(2)
	// an anonymous read caches the map before the order
	if r := a.do("GET", "/api/v1/shows/"+show+"/seats", "", nil, nil); r.status != 200 {
		t.Fatalf("anonymous read: %d", r.status)
	}
	tok := a.newUser()
	if r := a.do("POST", "/api/v1/shows/"+show+"/orders", tok, map[string]any{"seat_ids": seats}, nil); r.status != 201 {
		t.Fatalf("order: %d %s", r.status, r.body)
	}
	r := a.do("GET", "/api/v1/shows/"+show+"/seats", tok, nil, nil)
	var m struct {
		Seats []struct {
			ID    string `json:"id"`
			State string `json:"state"`
		} `json:"seats"`
	}
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("seat map: %d %s", r.status, r.body)
	}
	want := map[string]bool{}
	for _, s := range seats {
		want[s] = true
	}
	found := 0
	for _, s := range m.Seats {
		if want[s.ID] {
			found++
			if s.State != "held" {
				t.Errorf("seat %s reads %s to its buyer right after the order, want held", s.ID, s.State)
			}
		}
	}
	if found != len(seats) {
		t.Fatalf("found %d of the %d ordered seats in the map", found, len(seats))
	}
}
