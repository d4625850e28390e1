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
