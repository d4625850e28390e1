package loadtest

import "testing"

// TestPerOpCommands: the commands that cost Redis most between two readings come first,
// each in µs per operation; a missing reading or no operations says nothing.
func TestPerOpCommands(t *testing.T) {
	before := map[string]int64{"evalsha": 1000, "hget": 50, "ping": 7}
	after := map[string]int64{"evalsha": 5000, "hget": 250, "ping": 7, "hgetall": 1000}
	for _, c := range []struct {
		name          string
		before, after map[string]int64
		ops           int64
		n             int
		want          string
	}{
		{"most costly first, per op", before, after, 1000, 3, "evalsha 4.00 µs, hgetall 1.00 µs, hget 0.20 µs"},
		{"at most n, unchanged left out", before, after, 2000, 2, "evalsha 2.00 µs, hgetall 0.50 µs"},
		{"no reading before", nil, after, 1000, 3, ""},
		{"no operations", before, after, 0, 3, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := perOpCommands(c.before, c.after, c.ops, c.n); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
