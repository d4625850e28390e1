package pdfread

import (
	"fmt"
	"math/rand/v2"
	"testing"

	qrcode "github.com/skip2/go-qrcode"
)

// TestDecode_EveryTicketReference: decode reads the module grid the ticket PDF draws
// (go-qrcode, Medium, no border) for 2,000 ticket references of the real shape
// (SF1.<order no>.<22-character mac>), drawn from a fixed seed. Read as a photo of a
// code (finder and alignment patterns searched for), a few in a thousand of them were
// not found; the grid is drawn square by square, so it is read as a pure code.
func TestDecode_EveryTicketReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(2026, 12))
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	const order = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	pick := func(from string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = from[rng.IntN(len(from))]
		}
		return string(b)
	}
	failed := 0
	for i := 0; i < 2000; i++ {
		ref := "SF1." + pick(order, 15) + "." + pick(alphabet, 22)
		q, err := qrcode.New(ref, qrcode.Medium)
		if err != nil {
			t.Fatal(err)
		}
		q.DisableBorder = true
		var rects [][][]byte // as rectFill matches "x y w -h re f", in points (1.5 a module)
		for r, row := range q.Bitmap() {
			for c, on := range row {
				if on {
					rects = append(rects, [][]byte{nil, []byte(fmt.Sprint(20 + 1.5*float64(c))), []byte(fmt.Sprint(400 - 1.5*float64(r))), []byte("1.5")})
				}
			}
		}
		if got, err := decode(rects); err != nil || got != ref {
			failed++
			if failed <= 3 {
				t.Errorf("%s read as %q (%v)", ref, got, err)
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of 2000 references not read", failed)
	}
}
