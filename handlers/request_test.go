package handlers

import "testing"

// TestBodyLimit: the routes that take a hall's layout accept bodies up to 256 KiB, every
// other route 64 KiB.
func TestBodyLimit(t *testing.T) {
	cases := []struct {
		method, path string
		want         int
	}{
		{"POST", "/admin/halls", MaxLayoutBodyBytes},
		{"POST", "/admin/halls/", MaxLayoutBodyBytes},
		{"POST", "/admin/halls/preview", MaxLayoutBodyBytes},
		{"POST", "/admin/halls/12", MaxLayoutBodyBytes},
		{"POST", "/Admin/Halls/12", MaxLayoutBodyBytes},
		{"POST", "/api/v1/admin/halls", MaxLayoutBodyBytes},
		{"PATCH", "/api/v1/admin/halls/12", MaxLayoutBodyBytes},
		{"GET", "/admin/halls/12", MaxBodyBytes},
		{"POST", "/admin/halls/12/extra", MaxBodyBytes},
		{"POST", "/admin/hallsx", MaxBodyBytes},
		{"POST", "/admin/shows", MaxBodyBytes},
		{"POST", "/api/v1/shows/7/orders", MaxBodyBytes},
		{"POST", "/shows/7/book", MaxBodyBytes},
		{"POST", "/login", MaxBodyBytes},
	}
	for _, c := range cases {
		t.Run(c.method+" "+c.path, func(t *testing.T) {
			if got := BodyLimit(c.method, c.path); got != c.want {
				t.Errorf("%d bytes, want %d", got, c.want)
			}
		})
	}
}

// TestParseID: an id has one spelling, so "07", "+7" and " 7" never alias 7 (in paths,
// queries and bodies alike).
func TestParseID(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"7", 7, true}, {"10", 10, true}, {"9223372036854775807", 9223372036854775807, true},
		{"01", 0, false}, {"007", 0, false}, {"0", 0, false}, {"+1", 0, false}, {"-1", 0, false},
		{" 1", 0, false}, {"1 ", 0, false}, {"1e3", 0, false}, {"", 0, false}, {"9223372036854775808", 0, false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got, ok := parseID(tc.in); ok != tc.ok || ok && got != tc.want {
				t.Errorf("parseID(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestSentence: a service message shown on a page starts with a capital and ends with a
// full stop; a field name it opens with reads as words ("Time zone", never "Time_zone").
func TestSentence(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`time_zone "Mars/Olympus" is not an IANA time zone (such as Europe/London)`, `Time zone "Mars/Olympus" is not an IANA time zone (such as Europe/London).`},
		{"cinema_id must be an id string such as \"7\"", "Cinema id must be an id string such as \"7\"."},
		{"name must be 1 to 100 characters", "Name must be 1 to 100 characters."},
		{"Seats are taken!", "Seats are taken!"},
		{"show_id", "Show id."},
		{"", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			if got := sentence(tc.in); got != tc.want {
				t.Errorf("sentence(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
