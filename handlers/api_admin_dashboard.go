package handlers

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"seatflow/jobs"
	"seatflow/services/staff"
)

// GET /api/v1/admin/dashboard answers the console dashboard's figures (staff and
// admins). Times are RFC 3339 UTC, amounts minor units with their currency, ids strings:
//
//	{"now", "time_zone",
//	 "today_shows":[{"show_id","starts_at","movie","hall","status","sellable","sold","held","free","sold_percent","held_percent"}],
//	 "revenue":{"today":R,"week":R},  R = {"from","to","totals":[L],"by_movie":[L],"by_hall":[L]},
//	   L = {"id","name","currency","orders","seats","amount_minor"} (totals have no id and name)
//	 "channels_today":[{"channel","currency","orders","seats","gross_minor","discount_minor","refunded_minor","net_minor"}]
//	   (per currency, online then box_office; each cinema's own local day),
//	 "orders_per_minute":[{"start","created","paid"}] (60, oldest first),
//	 "pending":{"count","overdue","oldest":[{"order_no","show_id","movie","user_email","seats","total_minor","currency","created_at","expires_at"}]},
//	 "expiry_queue":{"scheduled","retry","archived","pending","active","processed_today","failed_today",
//	   "scheduled_tasks":[T],"retry_tasks":[T],"archived_tasks":[T]} or null, with "expiry_error",
//	   T = {"task_id","order_no","next_run_at" (null when archived),"retried","max_retry","last_error","last_failed_at"},
//	 "last_reconcile_run": the run as GET /api/v1/admin/reconcile/runs lists it, or null}
//
// Errors: 503 UNAVAILABLE (the database).
func (d *Deps) apiDashboard(c *fiber.Ctx) error {
	ctx, cancel := ctxOf(c)
	defer cancel()
	data, err := d.loadDashboard(ctx)
	if err != nil {
		return err
	}
	s := data.Snap
	out := dashboardJSON{Now: rfc(s.Now), TimeZone: s.Zone.String(), TodayShows: []occupancyJSON{},
		Revenue:         map[string]revenueJSON{"today": revenueOut(s.RevenueToday), "week": revenueOut(s.RevenueWeek)},
		OrdersPerMinute: make([]minuteJSON, len(s.Minutes)),
		Pending:         pendingJSON{Count: s.Pending.Count, Overdue: s.Pending.Overdue, Oldest: []pendingOrderJSON{}},
		ExpiryError:     optString(data.ExpiryError), ChannelsToday: []channelSalesJSON{}}
	for _, ch := range s.Channels {
		out.ChannelsToday = append(out.ChannelsToday, channelSalesJSON{Channel: ch.Key, Currency: ch.Currency, Orders: ch.Orders, Seats: ch.Seats,
			GrossMinor: ch.GrossMinor, DiscountMinor: ch.DiscountMinor, RefundedMinor: ch.RefundedMinor, NetMinor: ch.NetMinor})
	}
	for _, sh := range s.TodayShows {
		out.TodayShows = append(out.TodayShows, occupancyJSON{ShowID: id(sh.ShowID), StartsAt: rfc(sh.StartsAt),
			Movie: sh.MovieTitle, Hall: sh.HallName, Status: sh.Status, Sellable: sh.Sellable, Sold: sh.Sold,
			Held: sh.Held, Free: sh.Free(), SoldPercent: sh.SoldPercent(), HeldPercent: sh.HeldPercent()})
	}
	for i, m := range s.Minutes {
		out.OrdersPerMinute[i] = minuteJSON{Start: rfc(m.Start), Created: m.Created, Paid: m.Paid}
	}
	for _, o := range s.Pending.Oldest {
		out.Pending.Oldest = append(out.Pending.Oldest, pendingOrderJSON{OrderNo: o.OrderNo, ShowID: id(o.ShowID),
			Movie: o.MovieTitle, UserEmail: o.UserEmail, Seats: o.Seats, TotalMinor: o.TotalMinor,
			Currency: o.Currency, CreatedAt: rfc(o.CreatedAt), ExpiresAt: rfc(o.ExpiresAt)})
	}
	if q := data.Expiry; q != nil {
		out.ExpiryQueue = &expiryQueueJSON{Scheduled: q.Scheduled, Retry: q.Retry, Archived: q.Archived,
			Pending: q.Pending, Active: q.Active, ProcessedToday: q.Processed, FailedToday: q.Failed,
			ScheduledTasks: tasksOut(q.ScheduledTasks), RetryTasks: tasksOut(q.RetryTasks), ArchivedTasks: tasksOut(q.ArchivedTasks)}
	}
	if data.LastRun != nil {
		r := runOut(data.LastRun)
		out.LastRun = &r
	}
	return c.JSON(out)
}

type dashboardJSON struct {
	Now             string                 `json:"now"`
	TimeZone        string                 `json:"time_zone"`
	TodayShows      []occupancyJSON        `json:"today_shows"`
	Revenue         map[string]revenueJSON `json:"revenue"`
	ChannelsToday   []channelSalesJSON     `json:"channels_today"`
	OrdersPerMinute []minuteJSON           `json:"orders_per_minute"`
	Pending         pendingJSON            `json:"pending"`
	ExpiryQueue     *expiryQueueJSON       `json:"expiry_queue"`
	ExpiryError     *string                `json:"expiry_error"`
	LastRun         *runJSON               `json:"last_reconcile_run"`
}

type channelSalesJSON struct {
	Channel       string `json:"channel"`
	Currency      string `json:"currency"`
	Orders        int64  `json:"orders"`
	Seats         int64  `json:"seats"`
	GrossMinor    int64  `json:"gross_minor"`
	DiscountMinor int64  `json:"discount_minor"`
	RefundedMinor int64  `json:"refunded_minor"`
	NetMinor      int64  `json:"net_minor"`
}

type occupancyJSON struct {
	ShowID      string  `json:"show_id"`
	StartsAt    string  `json:"starts_at"`
	Movie       string  `json:"movie"`
	Hall        string  `json:"hall"`
	Status      string  `json:"status"`
	Sellable    int     `json:"sellable"`
	Sold        int     `json:"sold"`
	Held        int     `json:"held"`
	Free        int     `json:"free"`
	SoldPercent float64 `json:"sold_percent"`
	HeldPercent float64 `json:"held_percent"`
}

type revenueJSON struct {
	From    string            `json:"from"`
	To      string            `json:"to"`
	Totals  []revenueLineJSON `json:"totals"`
	ByMovie []revenueLineJSON `json:"by_movie"`
	ByHall  []revenueLineJSON `json:"by_hall"`
}

type revenueLineJSON struct {
	ID          string `json:"id,omitempty"`
	Name        string `json:"name,omitempty"`
	Currency    string `json:"currency"`
	Orders      int    `json:"orders"`
	Seats       int    `json:"seats"`
	AmountMinor int64  `json:"amount_minor"`
}

type minuteJSON struct {
	Start   string `json:"start"`
	Created int    `json:"created"`
	Paid    int    `json:"paid"`
}

type pendingJSON struct {
	Count   int                `json:"count"`
	Overdue int                `json:"overdue"`
	Oldest  []pendingOrderJSON `json:"oldest"`
}

type pendingOrderJSON struct {
	OrderNo    string `json:"order_no"`
	ShowID     string `json:"show_id"`
	Movie      string `json:"movie"`
	UserEmail  string `json:"user_email"`
	Seats      int    `json:"seats"`
	TotalMinor int64  `json:"total_minor"`
	Currency   string `json:"currency"`
	CreatedAt  string `json:"created_at"`
	ExpiresAt  string `json:"expires_at"`
}

type expiryQueueJSON struct {
	Scheduled      int              `json:"scheduled"`
	Retry          int              `json:"retry"`
	Archived       int              `json:"archived"`
	Pending        int              `json:"pending"`
	Active         int              `json:"active"`
	ProcessedToday int              `json:"processed_today"`
	FailedToday    int              `json:"failed_today"`
	ScheduledTasks []expiryTaskJSON `json:"scheduled_tasks"`
	RetryTasks     []expiryTaskJSON `json:"retry_tasks"`
	ArchivedTasks  []expiryTaskJSON `json:"archived_tasks"`
}

type expiryTaskJSON struct {
	TaskID       string   `json:"task_id"`
	OrderNo      string   `json:"order_no"`
	OrderNos     []string `json:"order_nos"` // every order the task expires (a batch's)
	NextRunAt    *string  `json:"next_run_at"`
	Retried      int      `json:"retried"`
	MaxRetry     int      `json:"max_retry"`
	LastError    *string  `json:"last_error"`
	LastFailedAt *string  `json:"last_failed_at"`
}

func revenueOut(r *staff.Revenue) revenueJSON {
	lines := func(ls []*staff.RevenueLine, named bool) []revenueLineJSON {
		out := make([]revenueLineJSON, 0, len(ls))
		for _, l := range ls {
			j := revenueLineJSON{Currency: l.Currency, Orders: l.Orders, Seats: l.Seats, AmountMinor: l.AmountMinor}
			if named {
				j.ID, j.Name = id(l.ID), l.Name
			}
			out = append(out, j)
		}
		return out
	}
	return revenueJSON{From: rfc(r.From), To: rfc(r.To), Totals: lines(r.Totals, false),
		ByMovie: lines(r.ByMovie, true), ByHall: lines(r.ByHall, true)}
}

func tasksOut(ts []jobs.ExpiryTask) []expiryTaskJSON {
	opt := func(t time.Time) *string {
		if t.IsZero() {
			return nil
		}
		s := rfc(t)
		return &s
	}
	out := make([]expiryTaskJSON, 0, len(ts))
	for _, t := range ts {
		out = append(out, expiryTaskJSON{TaskID: t.TaskID, OrderNo: t.OrderNo, OrderNos: nonNil(t.OrderNos), NextRunAt: opt(t.NextRunAt),
			Retried: t.Retried, MaxRetry: t.MaxRetry, LastError: optString(t.LastError), LastFailedAt: opt(t.LastFailedAt)})
	}
	return out
}

// nonNil is s, or an empty list for nil (JSON [] rather than null).
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
