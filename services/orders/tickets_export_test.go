package orders

import "io"

// SetRand makes t draw its ticket codes from r (tests replay a draw to force a collision).
func (t *Tickets) SetRand(r io.Reader) { t.rand = r }
