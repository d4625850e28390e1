package waitingroom

import "testing"

// TestDrawRanks: the drawn key's members in draw order give each user their 0-based
// rank, whatever order the user ids come in; a user not drawn is not found, and a member
// that is not a user id is an error.
func TestDrawRanks(t *testing.T) {
	d, err := newDrawRanks([]string{"42", "7", "1000", "3"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		user  int64
		rank  int
		found bool
	}{
		{"drawn first", 42, 0, true},
		{"drawn second, a lower id", 7, 1, true},
		{"drawn third", 1000, 2, true},
		{"drawn last, the lowest id", 3, 3, true},
		{"not drawn", 8, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if rank, found := d.of(c.user); rank != c.rank || found != c.found {
				t.Errorf("user %d: rank %d found %v, want %d %v", c.user, rank, found, c.rank, c.found)
			}
		})
	}
	if _, err := newDrawRanks([]string{"1", "x"}); err == nil {
		t.Error("a member that is not a user id was taken")
	}
	if d, err := newDrawRanks(nil); err != nil || len(d.users) != 0 {
		t.Errorf("no members: %v, %v", d, err)
	}
}
