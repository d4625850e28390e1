package views

import (
	"slices"
	"time"
)

// UserAccount is one account on the users and roles page.
type UserAccount struct {
	ID        int64
	Email     string
	Name      string
	Role      string
	CreatedAt time.Time
	// CinemaIDs are the cinemas a staff member works for; empty: every cinema.
	CinemaIDs []int64
}

// WorksFor reports whether the account is limited to cinema id (false for every cinema).
func (u *UserAccount) WorksFor(id int64) bool { return slices.Contains(u.CinemaIDs, id) }
