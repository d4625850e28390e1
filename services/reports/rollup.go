package reports

import (
	"context"
	"time"

	"seatflow/services"
	"seatflow/services/store"
)

// SettleMargin is how long after a local day ends it counts as complete and may be rolled
// up: orders.paid_at and refunds.created_at are stamped from the app's clock before their
// transaction commits (a payment's transaction waits on locks, retries deadlocks, and
// app servers' clocks drift), so a row dated just before midnight can land minutes after
// it. A day rolled up before such a row lands would miss it for good; 15 minutes is far
// beyond any transaction's life (DBTimeout, ReadTimeout) and clock drift NTP allows.
const SettleMargin = 15 * time.Minute

// LastCompleteDay is the last local date (a UTC midnight standing for it) of zone loc
// whose end lies SettleMargin or more before now: the day before the local date of
// now − SettleMargin.
func LastCompleteDay(loc *time.Location, now time.Time) time.Time {
	l := now.Add(-SettleMargin).In(loc)
	return time.Date(l.Year(), l.Month(), l.Day()-1, 0, 0, 0, 0, time.UTC)
}

// rolledQuery is plan's store query split by zone at each zone's last complete day: the
// complete days (rolled up now when they are not yet) from the rollup, the later ones
// live. Errors: the database's.
func (r *Reports) rolledQuery(ctx context.Context, plan *Plan) (store.SalesQuery, error) {
	now := r.clock.Now()
	out := store.SalesQuery{By: plan.By, FromDate: plan.sq.FromDate, ToDate: plan.sq.ToDate}
	byZone := map[string][]services.Cinema{}
	var zones []string
	for _, c := range plan.cinemas {
		if _, ok := byZone[c.TimeZone]; !ok {
			zones = append(zones, c.TimeZone)
		}
		byZone[c.TimeZone] = append(byZone[c.TimeZone], c)
	}
	for _, z := range zones {
		cinemas := byZone[z]
		last := LastCompleteDay(services.Location(z), now)
		if rolledTo := minTime(plan.to, last); !rolledTo.Before(plan.from) {
			if err := r.rollUp(ctx, cinemas, plan.from, rolledTo, now); err != nil {
				return out, err
			}
			ids := make([]int64, len(cinemas))
			for i, c := range cinemas {
				ids[i] = c.ID
			}
			out.Rolled = append(out.Rolled, store.RolledDays{CinemaIDs: ids, From: plan.from, To: rolledTo})
		}
		liveFrom := plan.from
		if next := last.AddDate(0, 0, 1); next.After(liveFrom) {
			liveFrom = next
		}
		if liveFrom.After(plan.to) {
			continue
		}
		live := SalesQuery(plan.By, liveFrom, plan.to, cinemas)
		if len(out.Zones) == 0 || live.Lo.Before(out.Lo) {
			out.Lo = live.Lo
		}
		if len(out.Zones) == 0 || live.Hi.After(out.Hi) {
			out.Hi = live.Hi
		}
		out.Zones = append(out.Zones, live.Zones...)
	}
	return out, nil
}

// RollUpChunkDays is how many local days one roll-up transaction covers at most: a year is
// rolled up month by month, each month committed on its own, so a report cut short (a
// timeout, a client gone) keeps the months it finished and no transaction holds its
// markers for long.
const RollUpChunkDays = 31

// rollUp rolls up the dates from..to of cinemas (one zone) that are not rolled up yet,
// reading the source tables over the span of the missing dates, RollUpChunkDays at a time.
func (r *Reports) rollUp(ctx context.Context, cinemas []services.Cinema, from, to, now time.Time) error {
	ids := make([]int64, len(cinemas))
	for i, c := range cinemas {
		ids[i] = c.ID
	}
	have, err := store.SalesDaysRolled(ctx, r.db, ids, from, to)
	if err != nil {
		return err
	}
	done := make(map[store.CinemaDay]bool, len(have))
	for _, d := range have {
		done[d] = true
	}
	var missing []store.CinemaDay
	var lo, hi time.Time
	flush := func() error {
		if len(missing) == 0 {
			return nil
		}
		z := SalesQuery(ByDay, lo, hi, cinemas).Zones[0]
		_, err := store.RollUpSales(ctx, r.db, z, missing, now)
		missing = nil
		return err
	}
	for d := from; !d.After(to); d = d.AddDate(0, 0, 1) {
		for _, id := range ids {
			cd := store.CinemaDay{CinemaID: id, Day: d}
			if done[cd] {
				continue
			}
			if len(missing) > 0 && !d.Before(lo.AddDate(0, 0, RollUpChunkDays)) {
				if err := flush(); err != nil {
					return err
				}
			}
			if len(missing) == 0 {
				lo = d
			}
			hi = d
			missing = append(missing, cd)
		}
	}
	return flush()
}

// RollUp rolls up the complete local dates from..to (UTC midnights standing for dates,
// both included) of cinemas that are not rolled up yet (a later date is left alone), as
// the first report covering them would. Errors: the database's.
func (r *Reports) RollUp(ctx context.Context, cinemas []services.Cinema, from, to time.Time) error {
	now := r.clock.Now()
	byZone := map[string][]services.Cinema{}
	for _, c := range cinemas {
		byZone[c.TimeZone] = append(byZone[c.TimeZone], c)
	}
	for z, cs := range byZone {
		if t := minTime(to, LastCompleteDay(services.Location(z), now)); !t.Before(from) {
			if err := r.rollUp(ctx, cs, from, t, now); err != nil {
				return err
			}
		}
	}
	return nil
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// RollUpRecent rolls up the complete local days of the last days days of every cinema
// that are not rolled up yet (the scheduled job's work, jobs.AddSalesRollup), so the
// first report over a long range reads the rollup instead of paying for it. A second
// run finds nothing left but today's neighbours. Errors: the database's.
func (r *Reports) RollUpRecent(ctx context.Context, days int) error {
	cinemas, err := store.Cinemas(ctx, r.db)
	if err != nil || len(cinemas) == 0 {
		return err
	}
	now := r.clock.Now().UTC()
	to := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	return r.RollUp(ctx, cinemas, to.AddDate(0, 0, -days), to)
}
