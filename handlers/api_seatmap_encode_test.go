package handlers

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"math/rand/v2"
	"strconv"
	"testing"

	"seatflow/services"
	"seatflow/services/seats"
)

// layoutTestHall is a hall of rows x cols seats (more than one gzip segment) with
// labels that JSON escapes, a blocked seat and two zones.
func layoutTestHall(rows, cols int) *services.Hall {
	h := &services.Hall{ID: 3, Rows: rows, Cols: cols}
	for r := 1; r <= rows; r++ {
		for c := 1; c <= cols; c++ {
			s := services.Seat{ID: int64(1000 + r*cols + c), Row: r, Col: c, ZoneCode: "std", Kind: services.KindStandard,
				Label: string(rune('A'+r-1)) + strconv.Itoa(c)}
			if r == 1 {
				s.ZoneCode, s.Label = "vip", `<"V">&`+strconv.Itoa(c)
			}
			if r == 2 && c == 3 {
				s.Kind = services.KindBlocked
			}
			if r == 3 && c == 1 {
				s.Kind = services.KindWheelchair
			}
			h.Seats = append(h.Seats, s)
		}
	}
	h.Index()
	return h
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSeatMapLayout_EncodesAsJSONMarshal: the layout's body is byte for byte what
// json.Marshal makes of seatMapOut, and its gzip (made of segments, those of unchanged
// seats reused) inflates to that body after every change, wherever the change falls.
func TestSeatMapLayout_EncodesAsJSONMarshal(t *testing.T) {
	all := []string{services.StateFree, services.StateHeld, services.StateSold, services.StateBlocked}
	for _, tc := range []struct {
		name       string
		rows, cols int
	}{{"empty hall", 0, 0}, {"one segment", 3, 7}, {"several segments", 9, 70}} {
		t.Run(tc.name, func(t *testing.T) {
			hall := layoutTestHall(tc.rows, tc.cols)
			show := &services.Show{ID: 42, HallID: hall.ID}
			l, err := newSeatMapLayout(show.ID, hall)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			states := make([]string, len(hall.Seats))
			for i := range states {
				states[i] = services.StateFree
			}
			for round := 0; round < 6; round++ {
				if len(states) > 0 {
					for k := 0; k < round*3; k++ { // round 0 changes nothing
						states[rng.IntN(len(states))] = all[rng.IntN(len(all))]
					}
				}
				m := &seats.SeatMap{Show: show, Hall: hall, States: map[int64]string{}}
				for i, s := range hall.Seats {
					m.States[s.ID] = states[i]
				}
				want, err := json.Marshal(seatMapOut(m))
				if err != nil {
					t.Fatal(err)
				}
				body, codes := l.encode(append([]string(nil), states...))
				if !bytes.Equal(body, want) {
					t.Fatalf("round %d: layout body differs from json.Marshal:\n%s\n%s", round, body, want)
				}
				if got := gunzip(t, l.gzip(body, states, codes)); !bytes.Equal(got, want) {
					t.Fatalf("round %d: gzip inflates to another body:\n%s\n%s", round, got, want)
				}
			}
		})
	}
}

// TestSeatMapLayout_RecompressesOnlyChangedSegments: a segment is compressed again only
// when one of its seats changed state.
func TestSeatMapLayout_RecompressesOnlyChangedSegments(t *testing.T) {
	hall := layoutTestHall(4, segmentSeats) // four segments
	l, err := newSeatMapLayout(1, hall)
	if err != nil {
		t.Fatal(err)
	}
	states := make([]string, len(hall.Seats))
	for i := range states {
		states[i] = services.StateFree
	}
	body, codes := l.encode(states)
	l.gzip(body, states, codes)
	before := append([]gzSegment(nil), l.segs...)
	states[2*segmentSeats+5] = services.StateHeld
	body, codes = l.encode(states)
	if got := gunzip(t, l.gzip(body, states, codes)); !bytes.Equal(got, body) {
		t.Fatal("gzip inflates to another body")
	}
	for k := range l.segs {
		same := &l.segs[k].data[0] == &before[k].data[0]
		if same != (k != 2) {
			t.Errorf("segment %d: reused %v, want %v", k, same, k != 2)
		}
	}
}

// TestSeatMapLayout_FitsTheSameSeatsOnly: a hall read again with the same seats keeps
// its layout; a seat moved, renamed, rezoned or of another kind needs a new one.
func TestSeatMapLayout_FitsTheSameSeatsOnly(t *testing.T) {
	l, err := newSeatMapLayout(1, layoutTestHall(3, 4))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		edit func(*services.Hall)
		fits bool
	}{
		{"read again", func(*services.Hall) {}, true},
		{"a label", func(h *services.Hall) { h.Seats[5].Label = "Z9" }, false},
		{"a zone", func(h *services.Hall) { h.Seats[9].ZoneCode = "vip" }, false},
		{"a kind", func(h *services.Hall) { h.Seats[7].Kind = services.KindBlocked }, false},
		{"a place", func(h *services.Hall) { h.Seats[0].Col = 9 }, false},
		{"a seat fewer", func(h *services.Hall) { h.Seats = h.Seats[1:] }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := layoutTestHall(3, 4)
			tc.edit(h)
			if got := l.fits(h); got != tc.fits {
				t.Errorf("fits %v, want %v", got, tc.fits)
			}
		})
	}
}

// seatMapOut is the API's seat map of m as json.Marshal writes it: the definition the
// layout's bytes are held to.
func seatMapOut(m *seats.SeatMap) seatMapJSON {
	out := seatMapJSON{ShowID: id(m.Show.ID), Rows: m.Hall.Rows, Cols: m.Hall.Cols, Seats: make([]seatJSON, len(m.Hall.Seats))}
	for i, s := range m.Hall.Seats {
		out.Seats[i] = seatOut(s, m.States[s.ID])
	}
	return out
}
