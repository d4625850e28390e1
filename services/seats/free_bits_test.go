package seats

import (
	"math/rand/v2"
	"slices"
	"testing"

	"seatflow/services"
)

// TestChoosePlain_SameAsChooseBlock: the word-wide search picks exactly what
// ChooseBlock picks for a plain request (block, free count, stranded seats), on random
// halls and seat maps, also after seats were taken and freed through FreeBits.Set, and
// on rows longer than a word.
func TestChoosePlain_SameAsChooseBlock(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 4))
	for n := 0; n < 300; n++ {
		cols := 1 + rng.IntN(30)
		if n%10 == 0 {
			cols = 60 + rng.IntN(200) // rows of several words
		}
		h := randomHall(rng, 1+rng.IntN(8), cols)
		free := make([]bool, len(h.Seats))
		share := rng.IntN(10)
		for i := range free {
			free[i] = rng.IntN(10) >= share
		}
		fb := NewFreeBits(h, free)
		for round := 0; round < 3; round++ {
			for _, zone := range []string{"standard", "premium", "none"} {
				for q := 0; q <= 7; q++ {
					for _, count := range []bool{false, true} {
						want := ChooseBlock(h, free, zone, q, false, count)
						got := ChoosePlain(h, free, fb, zone, q, count)
						if !slices.Equal(got.IDs, want.IDs) || got.Free != want.Free || !slices.Equal(got.Stranded, want.Stranded) {
							t.Fatalf("hall %d (%dx%d) round %d zone %s x%d count %v: got %+v, want %+v", n, h.Rows, h.Cols, round, zone, q, count, got, want)
						}
					}
				}
			}
			// the map moves on: some seats taken, some freed, the index kept in step
			for k := 0; k < len(free)/3+1 && len(free) > 0; k++ {
				i := rng.IntN(len(free))
				free[i] = !free[i]
				fb.Set(h, int32(i), free[i])
			}
		}
	}
}

// BenchmarkChoosePlain_FlashFill: a flash sale of pairs on a 200 x 200 hall, as one
// process's best-available snapshot sees it: each choice is marked taken before the
// next, from an empty hall until it is full (20,000 choices an op).
func BenchmarkChoosePlain_FlashFill(b *testing.B) {
	h := &services.Hall{Rows: 200, Cols: 200}
	for r := 1; r <= 200; r++ {
		for c := 1; c <= 200; c++ {
			h.Seats = append(h.Seats, services.Seat{ID: int64(len(h.Seats) + 1), ZoneCode: "standard", Row: r, Col: c, Kind: services.KindStandard})
		}
	}
	h.Index()
	for b.Loop() {
		free := make([]bool, len(h.Seats))
		for i := range free {
			free[i] = true
		}
		fb := NewFreeBits(h, free)
		for {
			p := ChoosePlain(h, free, fb, "standard", 2, false)
			if p.IDs == nil {
				break
			}
			for _, id := range p.IDs {
				i, _ := h.SeatIndex(id)
				free[i] = false
				fb.Set(h, int32(i), false)
			}
		}
	}
}
