package views

import "time"

// UserAccount is one account on the users and roles page.
type UserAccount struct {
	ID        int64
	Email     string
	Name      string
	Role      string
	CreatedAt time.Time
}
