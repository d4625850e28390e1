package demo_test

import (
	"reflect"
	"testing"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/demo"
)

// TestStadiumLayout: the stadium parses as a hall of the largest grid, with its blocks,
// aisles, zones and wheelchair spaces beside their companion seats.
func TestStadiumLayout(t *testing.T) {
	cases := []struct {
		name       string
		opt        demo.StadiumOptions
		rows, cols int
		seats      int
		wheelchair int
		lastLabel  string
	}{
		{"stadium", demo.StadiumOptions{}, 300, 300, 289 * 289, 44, "KC289"},
		{"big hall", demo.StadiumOptions{Rows: 60, Cols: 80}, 60, 80, 58 * 77, 2, "BF77"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := demo.StadiumLayout(c.opt)
			l, err := catalog.ParseLayout(text, catalog.NumberLeftToRight)
			if err != nil {
				t.Fatal(err)
			}
			if l.Rows != c.rows || l.Cols != c.cols || len(l.Seats) != c.seats {
				t.Fatalf("%d x %d with %d seats, want %d x %d with %d", l.Rows, l.Cols, len(l.Seats), c.rows, c.cols, c.seats)
			}
			zones, blocked := l.ZoneCounts()
			if blocked != 0 || zones[catalog.ZoneVIP] == 0 || zones[catalog.ZonePremium] <= zones[catalog.ZoneVIP] || zones[catalog.ZoneStandard] <= zones[catalog.ZonePremium] {
				t.Errorf("zones %v, blocked %d: want vip < premium < standard", zones, blocked)
			}
			if s, _ := l.Seat(l.Rows/2, l.Cols/2); s.Zone != catalog.ZoneVIP {
				t.Errorf("the middle seat %s is %s, want vip", s.Label, s.Zone)
			}
			if s, _ := l.Seat(1, 1); s.Zone != catalog.ZoneStandard {
				t.Errorf("the corner seat %s is %s, want standard", s.Label, s.Zone)
			}
			wheelchair := 0
			for _, s := range l.Seats {
				if s.Kind != services.KindWheelchair {
					continue
				}
				wheelchair++
				if next, ok := l.Seat(s.Row, s.Col+1); !ok || next.Kind != services.KindCompanion {
					t.Errorf("wheelchair space %s has no companion seat beside it", s.Label)
				}
				if _, ok := l.Seat(s.Row, s.Col-1); ok {
					t.Errorf("wheelchair space %s is not at an aisle end", s.Label)
				}
			}
			if wheelchair != c.wheelchair {
				t.Errorf("%d wheelchair spaces, want %d", wheelchair, c.wheelchair)
			}
			if last := l.Seats[len(l.Seats)-1].Label; last != c.lastLabel {
				t.Errorf("last seat %s, want %s", last, c.lastLabel)
			}
		})
	}
}

// TestStadiumTaken: 70 % of the seats are taken in parties of 1 to 6 seats side by side
// (a wheelchair space with its companion seat), more in the middle than at the edges,
// the same for the same seed.
func TestStadiumTaken(t *testing.T) {
	l, err := catalog.ParseLayout(demo.StadiumLayout(demo.StadiumOptions{}), catalog.NumberLeftToRight)
	if err != nil {
		t.Fatal(err)
	}
	groups := demo.StadiumTaken(l, 42, 0.7)
	taken := map[int]bool{}
	sold, sizes := 0, map[int]int{}
	for _, g := range groups {
		sizes[len(g.Seats)]++
		if g.Sold {
			sold++
		}
		first := l.Seats[g.Seats[0]]
		for j, i := range g.Seats {
			s := l.Seats[i]
			if taken[i] {
				t.Fatalf("seat %s is in two groups", s.Label)
			}
			taken[i] = true
			if s.Row != first.Row || s.Col != first.Col+j {
				t.Fatalf("group %v is not side by side", g.Seats)
			}
			if s.Kind == services.KindCompanion && (j == 0 || l.Seats[g.Seats[j-1]].Kind != services.KindWheelchair) {
				t.Errorf("companion seat %s without its wheelchair space", s.Label)
			}
		}
	}
	for n := range sizes {
		if n < 1 || n > 6 {
			t.Errorf("a party of %d", n)
		}
	}
	if share := float64(len(taken)) / float64(len(l.Seats)); share < 0.699 || share > 0.701 {
		t.Errorf("%.3f of the seats taken, want 0.70", share)
	}
	if s := float64(sold) / float64(len(groups)); s < 0.8 || s > 0.9 {
		t.Errorf("%.2f of the parties paid, want about %.2f", s, demo.StadiumSoldShare)
	}
	share := func(rowFrom, rowTo, colFrom, colTo int) float64 {
		n, k := 0, 0
		for i, s := range l.Seats {
			if s.Row >= rowFrom && s.Row <= rowTo && s.Col >= colFrom && s.Col <= colTo {
				n++
				if taken[i] {
					k++
				}
			}
		}
		return float64(k) / float64(n)
	}
	middle, corner := share(125, 175, 125, 175), share(1, 50, 1, 50)
	if middle < 0.9 || corner > 0.6 || corner < 0.05 {
		t.Errorf("taken: %.2f in the middle, %.2f in a corner; want the middle nearly full and the corner partly", middle, corner)
	}
	if again := demo.StadiumTaken(l, 42, 0.7); !reflect.DeepEqual(again, groups) {
		t.Error("the same seed gave other groups")
	}
	if other := demo.StadiumTaken(l, 43, 0.7); reflect.DeepEqual(other, groups) {
		t.Error("another seed gave the same groups")
	}
}
