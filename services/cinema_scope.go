package services

import (
	"context"
	"slices"
	"strconv"
)

// CinemaScope is the cinemas a signed-in staff member may see and change (DESIGN.md
// "Staff limited to cinemas"): IDs empty means every cinema (admins, staff without
// rows in staff_cinemas, and the app's own jobs).
type CinemaScope struct {
	IDs []int64
}

// All reports whether the scope is every cinema.
func (s CinemaScope) All() bool { return len(s.IDs) == 0 }

// Allows reports whether cinema id is in the scope.
func (s CinemaScope) Allows(id int64) bool { return s.All() || slices.Contains(s.IDs, id) }

// Check returns FORBIDDEN unless cinema id is in the scope.
func (s CinemaScope) Check(id int64) error {
	if s.Allows(id) {
		return nil
	}
	return Errorf(CodeForbidden, "your account works for other cinemas than cinema %s", strconv.FormatInt(id, 10))
}

type cinemaScopeKey struct{}

// WithCinemaScope returns ctx carrying s: the services that list or change a cinema's
// halls, shows, orders, tickets and audit entries read it with CinemaScopeOf.
func WithCinemaScope(ctx context.Context, s CinemaScope) context.Context {
	return context.WithValue(ctx, cinemaScopeKey{}, s)
}

// CinemaScopeOf returns the scope ctx carries; every cinema when it carries none.
func CinemaScopeOf(ctx context.Context) CinemaScope {
	s, _ := ctx.Value(cinemaScopeKey{}).(CinemaScope)
	return s
}

// InCinemaScope returns the items of list whose cinema (cinemaOf) is in s, in order;
// list itself when s is every cinema.
func InCinemaScope[T any](s CinemaScope, list []T, cinemaOf func(T) int64) []T {
	if s.All() {
		return list
	}
	out := make([]T, 0, len(list))
	for _, x := range list {
		if s.Allows(cinemaOf(x)) {
			out = append(out, x)
		}
	}
	return out
}
