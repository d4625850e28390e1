package demo

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/catalog"
	"seatflow/services/orders"
	"seatflow/services/store"
)

// fillBatch is how many orders one transaction of FillShowGroups writes.
const fillBatch = 500

// FillShowGroups writes groups (StadiumTaken over l, the layout of the show's hall) as
// live orders of show showID in MySQL, one buyer per group: a paid order for a sold
// group, a pending one (deadline now + 15 min) for the rest, each seat at its zone's
// price. The buyers are new customers stadium-<show>-<n>@seatflow.test who cannot sign
// in. Orders are created one every 10 ms before now (their order numbers tell that
// time), through orders.InsertOrders, fillBatch to a transaction. The seat cache is left
// alone: the show's next load reads the orders. It returns the number of orders written.
// Errors: the database's; a seat label of l missing from the hall, or a zone without a
// price, is an error too.
func FillShowGroups(ctx context.Context, db *sqlx.DB, showID int64, l *catalog.Layout, groups []StadiumGroup, now time.Time) (int, error) {
	now = now.UTC().Truncate(time.Microsecond)
	currency, err := store.ShowCurrency(ctx, db, showID)
	if err != nil {
		return 0, err
	}
	seats, err := store.ShowPricedSeats(ctx, db, showID)
	if err != nil {
		return 0, err
	}
	byLabel := make(map[string]int, len(seats))
	for i, s := range seats {
		byLabel[s.Label] = i
	}
	users, err := fillerUsers(ctx, db, "stadium-"+strconv.FormatInt(showID, 10), len(groups), now)
	if err != nil {
		return 0, err
	}
	step, err := orders.AutoIncrementStep(ctx, db)
	if err != nil {
		return 0, err
	}
	all := make([]*services.Order, 0, len(groups))
	for n, g := range groups {
		created := now.Add(-time.Duration(len(groups)-n) * 10 * time.Millisecond)
		o := &services.Order{OrderNo: services.NewOrderNo(created), UserID: users[n], ShowID: showID, Status: services.OrderPending,
			Currency: currency, CreatedAt: created, ExpiresAt: now.Add(15 * time.Minute)}
		if g.Sold {
			paid := created.Add(time.Minute)
			o.Status, o.PaidAt, o.ExpiresAt = services.OrderPaid, &paid, created.Add(15*time.Minute)
		}
		for _, i := range g.Seats {
			label := l.Seats[i].Label
			j, ok := byLabel[label]
			if !ok {
				return 0, fmt.Errorf("seat %s is not a priced seat of show %d", label, showID)
			}
			s := seats[j]
			o.Seats = append(o.Seats, services.OrderSeat{SeatID: s.ID, Label: s.Label, ZoneCode: s.Zone, PriceMinor: s.Price})
			o.TotalMinor += s.Price
		}
		all = append(all, o)
	}
	for start := 0; start < len(all); start += fillBatch {
		batch := all[start:min(start+fillBatch, len(all))]
		tx, err := db.BeginTxx(ctx, nil)
		if err != nil {
			return start, err
		}
		if err := orders.InsertOrders(ctx, tx, batch, true, step); err != nil {
			_ = tx.Rollback()
			return start, err
		}
		if err := tx.Commit(); err != nil {
			return start, err
		}
	}
	return len(all), nil
}

// fillerUsers creates n customers <prefix>-<i>@seatflow.test (i from 1) that cannot sign
// in (their password hash is not in bcrypt format), reusing those that exist, and returns
// their ids in order.
func fillerUsers(ctx context.Context, db *sqlx.DB, prefix string, n int, now time.Time) ([]int64, error) {
	email := func(i int) string { return prefix + "-" + strconv.Itoa(i+1) + "@seatflow.test" }
	for start := 0; start < n; start += 1000 {
		end := min(start+1000, n)
		emails := make([]string, 0, end-start)
		names := make([]string, 0, end-start)
		for i := start; i < end; i++ {
			emails = append(emails, email(i))
			names = append(names, "Stadium buyer "+strconv.Itoa(i+1))
		}
		if err := store.SeedInsertUsers(ctx, db, emails, names, []byte("!unusable"), services.RoleCustomer, now); err != nil {
			return nil, err
		}
	}
	rows, err := store.SeedUsersLike(ctx, db, prefix+"-%@seatflow.test")
	if err != nil {
		return nil, err
	}
	byEmail := make(map[string]int64, len(rows))
	for _, r := range rows {
		byEmail[r.Email] = r.ID
	}
	out := make([]int64, n)
	for i := range out {
		id, ok := byEmail[email(i)]
		if !ok {
			return nil, fmt.Errorf("filler user %s was not created", email(i))
		}
		out[i] = id
	}
	return out, nil
}
