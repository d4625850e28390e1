package seats

import (
	"math/rand/v2"
	"slices"
	"testing"
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
