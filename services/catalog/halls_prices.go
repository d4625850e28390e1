package catalog

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"seatflow/services"
	"seatflow/services/store"
)

// unpricedShow is a show of a hall that has not started, with the zones of the hall's new
// layout it has no price for.
type unpricedShow struct {
	store.ShowStart
	missing []string
}

// priceHallZones keeps every zone of a hall's new layout l priced for each show of the
// hall that starts after now and is not cancelled (drafts, scheduled, on sale, closed):
// a zone such a show has no price for gets the price prices gives it (minor units), and
// without one the change is refused, so a seat is never on a seat map without a price.
// zones maps zone code -> id after ensureZones. It returns the ids of the shows that got
// a price and the prices given (zone code -> minor units). Errors: CONFLICT naming the
// shows (title and start in tz) and their unpriced zones, or the database's.
func priceHallZones(ctx context.Context, tx *sqlx.Tx, hallID int64, l *Layout, prices []ZonePrice, zones map[string]int64, now time.Time, tz *time.Location) ([]int64, map[string]int64, error) {
	ahead, err := store.HallShowsAhead(ctx, tx, hallID, now, services.ShowCancelled)
	if err != nil {
		return nil, nil, err
	}
	if len(ahead) == 0 {
		return nil, nil, nil
	}
	shows := make([]*unpricedShow, len(ahead))
	for i, sh := range ahead {
		shows[i] = &unpricedShow{ShowStart: sh}
	}
	ids := make([]int64, len(shows))
	for i, sh := range shows {
		ids[i] = sh.ID
	}
	have, err := store.ShowsPricedCodes(ctx, tx, ids)
	if err != nil {
		return nil, nil, err
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
	applied := map[string]int64{}
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
			if err := store.InsertShowPrice(ctx, tx, sh.ID, zones[z.Code], p); err != nil {
				return nil, nil, err
			}
			added = true
			applied[z.Code] = p
		}
		if added {
			got = append(got, sh.ID)
		}
		if len(sh.missing) > 0 {
			refused = append(refused, fmt.Sprintf("%q on %s (%s)", sh.Title, sh.StartsAt.In(tz).Format("Mon 2 Jan 15:04"), strings.Join(sh.missing, ", ")))
		}
	}
	if len(refused) > 0 {
		return nil, nil, services.Errorf(services.CodeConflict, "the new layout has seats in zones these shows have no price for: %s; give each such zone a price with this change (\"prices\" in the API, \"Prices for new zones\" in the console), or keep those seats in zones the shows price",
			nameFew(refused))
	}
	return got, applied, nil
}

// unpriceUnusedZones drops, for the hall's shows that have not started (and are not
// cancelled), the prices of zones no seat of the hall is in any more, and returns the
// ids of those shows: a zone that comes back is priced afresh, and buyers see no empty
// zone. Past and cancelled shows keep their prices.
func unpriceUnusedZones(ctx context.Context, tx *sqlx.Tx, hallID int64, now time.Time) ([]int64, error) {
	shows, err := store.ShowsPricingUnusedZones(ctx, tx, hallID, now, services.ShowCancelled)
	if err != nil {
		return nil, err
	}
	if err := store.DeleteUnusedZoneTicketPrices(ctx, tx, hallID, now, services.ShowCancelled); err != nil {
		return nil, err
	}
	if len(shows) == 0 {
		return nil, nil
	}
	err = store.DeleteUnusedZonePrices(ctx, tx, hallID, now, services.ShowCancelled)
	return shows, err
}

// deleteUnusedZones deletes the hall's zones that no seat and no show price names.
func deleteUnusedZones(ctx context.Context, tx *sqlx.Tx, hallID int64) error {
	return store.DeleteUnusedZones(ctx, tx, hallID)
}
