package catalog

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
)

// unpricedShow is a show of a hall that has not started, with the zones of the hall's new
// layout it has no price for.
type unpricedShow struct {
	ID       int64     `db:"id"`
	Title    string    `db:"title"`
	StartsAt time.Time `db:"starts_at"`
	missing  []string
}

// priceHallZones keeps every zone of a hall's new layout l priced for each show of the
// hall that starts after now and is not cancelled (drafts, scheduled, on sale, closed):
// a zone such a show has no price for gets the price prices gives it (minor units), and
// without one the change is refused, so a seat is never on a seat map without a price.
// zones maps zone code -> id after ensureZones. It returns the ids of the shows that got
// a price. Errors: CONFLICT naming the shows (title and start in tz) and their unpriced
// zones, or the database's.
func priceHallZones(ctx context.Context, tx *sqlx.Tx, hallID int64, l *Layout, prices []ZonePrice, zones map[string]int64, now time.Time, tz *time.Location) ([]int64, error) {
	var shows []*unpricedShow
	if err := tx.SelectContext(ctx, &shows, `SELECT sh.id, m.title, sh.starts_at FROM shows sh JOIN movies m ON m.id = sh.movie_id
		WHERE sh.hall_id = ? AND sh.starts_at > ? AND sh.status <> ? ORDER BY sh.starts_at, sh.id`, hallID, now, services.ShowCancelled); err != nil {
		return nil, err
	}
	if len(shows) == 0 {
		return nil, nil
	}
	ids := make([]int64, len(shows))
	for i, sh := range shows {
		ids[i] = sh.ID
	}
	q, args, err := sqlx.In(`SELECT p.show_id, z.code FROM show_prices p JOIN zones z ON z.id = p.zone_id WHERE p.show_id IN (?)`, ids)
	if err != nil {
		return nil, err
	}
	var have []struct {
		ShowID int64  `db:"show_id"`
		Code   string `db:"code"`
	}
	if err := tx.SelectContext(ctx, &have, tx.Rebind(q), args...); err != nil {
		return nil, err
	}
	type showZone struct {
		show int64
		zone string
	}
	priced := map[showZone]bool{}
	for _, h := range have {
		priced[showZone{h.ShowID, h.Code}] = true
	}
	var got []int64
	var refused []string
	used := l.Hall("").Zones
	for _, sh := range shows {
		added := false
		for _, z := range used {
			if priced[showZone{sh.ID, z.Code}] {
				continue
			}
			p, ok := priceOf(prices, z.Code)
			if !ok {
				sh.missing = append(sh.missing, z.Code)
				continue
			}
			if _, err := tx.ExecContext(ctx, "INSERT INTO show_prices (show_id, zone_id, price_minor) VALUES (?, ?, ?)", sh.ID, zones[z.Code], p); err != nil {
				return nil, err
			}
			added = true
		}
		if added {
			got = append(got, sh.ID)
		}
		if len(sh.missing) > 0 {
			refused = append(refused, fmt.Sprintf("%q on %s (%s)", sh.Title, sh.StartsAt.In(tz).Format("Mon 2 Jan 15:04"), strings.Join(sh.missing, ", ")))
		}
	}
	if len(refused) > 0 {
		return nil, services.Errorf(services.CodeConflict, "the new layout has seats in zones these shows have no price for: %s; send a price for each such zone with the layout (prices), or keep those seats in zones the shows price",
			nameFew(refused))
	}
	return got, nil
}
