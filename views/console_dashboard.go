package views

import (
	"strconv"
	"time"

	"seatflow/services"
)

// DashboardSnapshot is the dashboard's figures read at Now: today's shows in the
// cinema's Zone, the revenue of today and of the week, the orders per minute of the last
// hour (60 buckets, oldest first, the last one the minute Now is in) and the orders
// waiting for payment.
type DashboardSnapshot struct {
	Now          time.Time
	Zone         *time.Location
	TodayShows   []*ShowOccupancy
	RevenueToday *Revenue
	RevenueWeek  *Revenue
	Minutes      []MinuteCount
	Pending      *PendingOrders
	// Channels are today's sales per channel and currency, online then box office.
	Channels []ChannelSales
}

// ChannelSales is what one channel (Key: online, box_office; Label for people) sold
// today in Currency: Orders paid, Seats sold and NetMinor (gross less discounts less
// today's refunds, minor units).
type ChannelSales struct {
	Key, Label, Currency string
	Orders, Seats        int64
	NetMinor             int64
}

// ChannelTotals adds up ch per channel (online, box_office order): orders and seats of
// every currency, and the net per currency in currencies' order.
func ChannelTotals(ch []ChannelSales) (keys, labels []string, orders, seats map[string]int64, currencies []string, net map[string]map[string]int64) {
	orders, seats, net = map[string]int64{}, map[string]int64{}, map[string]map[string]int64{}
	for _, c := range ch {
		if _, ok := orders[c.Key]; !ok {
			keys, labels = append(keys, c.Key), append(labels, c.Label)
		}
		orders[c.Key] += c.Orders
		seats[c.Key] += c.Seats
		if net[c.Currency] == nil {
			net[c.Currency] = map[string]int64{}
			currencies = append(currencies, c.Currency)
		}
		net[c.Currency][c.Key] += c.NetMinor
	}
	return
}

// ShowOccupancy is one of today's shows with its seats: Sellable, Sold (paid), Held,
// Free (neither) and the sold and held shares of the sellable seats in percent (0..100).
// Status is the show's status as it reads now (services.Show* constants).
type ShowOccupancy struct {
	ShowID       int64
	StartsAt     time.Time
	MovieTitle   string
	HallID       int64
	HallName     string
	Zone         *time.Location // the show's cinema's; nil: the dashboard's
	Status       string
	SaleOpensAt  time.Time
	SaleClosesAt time.Time
	Sellable     int
	Sold         int
	Held         int
	Free         int
	SoldPercent  float64
	HeldPercent  float64
}

// Revenue is what was paid From (inclusive) To (exclusive): Totals has one line per
// currency (Name empty), ByMovie and ByHall are by amount, largest first.
type Revenue struct {
	From, To  time.Time
	EachLocal bool // cinemas in several zones, each summed over its own local range
	Totals    []*RevenueLine
	ByMovie   []*RevenueLine
	ByHall    []*RevenueLine
}

// RevenueLine is the paid orders, seats and amount (minor units of Currency) of one
// movie or hall (ID and Name), or of all (Name empty).
type RevenueLine struct {
	ID          int64
	Name        string
	Currency    string
	Orders      int
	Seats       int
	AmountMinor int64
}

// MinuteCount is the orders created and paid in the minute that begins at Start.
type MinuteCount struct {
	Start   time.Time
	Created int
	Paid    int
}

// PendingOrders are the orders waiting for payment: how many, how many are past their
// deadline, and the Oldest few.
type PendingOrders struct {
	Count   int
	Overdue int
	Oldest  []*PendingOrder
}

// PendingOrder is one order waiting for payment. Times are UTC; TotalMinor is in minor
// units of Currency.
type PendingOrder struct {
	OrderNo    string
	ShowID     int64
	MovieTitle string
	UserEmail  string
	Seats      int
	TotalMinor int64
	Currency   string
	CreatedAt  time.Time
	ExpiresAt  time.Time
}

// ExpiryQueueState is the order expiry queue: its counts (Processed and Failed are
// today's, UTC) and the first tasks of its scheduled, retry and archived lists.
type ExpiryQueueState struct {
	Pending        int
	Active         int
	Scheduled      int
	Retry          int
	Archived       int
	Processed      int
	Failed         int
	ScheduledTasks []ExpiryTask
	RetryTasks     []ExpiryTask
	ArchivedTasks  []ExpiryTask
}

// ExpiryTask is one task of the expiry queue: the order it expires, when it runs next
// (zero for an archived task), its retries and its last error.
type ExpiryTask struct {
	TaskID       string
	OrderNo      string
	NextRunAt    time.Time
	Retried      int
	MaxRetry     int
	LastError    string
	LastFailedAt time.Time
}

// DashboardProps are the props of the console's dashboard: the figures read at
// Snap.Now, the expiry queue (nil with ExpiryError when asynq could not be read), the
// last reconciliation run (nil when there was none) and the cinema's currency for the
// zero amounts of a day without sales.
type DashboardProps struct {
	Page
	Snap        *DashboardSnapshot
	Expiry      *ExpiryQueueState
	ExpiryError string
	LastRun     *ReconcileRun
	Currency    string
}

// DashboardPanelsID is the id of the element that holds the dashboard's panels (and
// that an htmx refresh replaces).
const DashboardPanelsID = "dashboard-panels"

// DashboardShowURL is a show's console page.
func DashboardShowURL(id int64) string { return "/admin/shows/" + i64(id) }

// DashboardOrderURL is the console's order search for one order number.
func DashboardOrderURL(no string) string { return "/admin/orders?order_no=" + queryEscape(no) }

// ShowStatusBadge is a show's status (services.Show* constants) as a badge.
func ShowStatusBadge(status string) StatusView {
	switch status {
	case services.ShowOnSale:
		return StatusView{"on sale", "badge-on-sale"}
	case services.ShowScheduled:
		return StatusView{"scheduled", "badge-upcoming"}
	case services.ShowClosed:
		return StatusView{"closed", "badge-closed"}
	case services.ShowCancelled:
		return StatusView{"cancelled", "badge-cancelled"}
	}
	return StatusView{status, "status-other"}
}

// Percent formats a share 0..100 without decimals, but never rounds a non-zero share
// down to "0%" or a share below 100 up to "100%": "0%", "<1%", "37%", ">99%", "100%".
func Percent(p float64) string {
	switch {
	case p <= 0:
		return "0%"
	case p < 1:
		return "<1%"
	case p >= 100:
		return "100%"
	case p > 99:
		return ">99%"
	}
	return strconv.Itoa(int(p+0.5)) + "%"
}

// BarWidth is the CSS width of a bar segment of p percent (clamped to 0..100).
func BarWidth(p float64) string {
	p = min(max(p, 0), 100)
	return "width:" + strconv.FormatFloat(p, 'f', 2, 64) + "%"
}

// OccupancyLabel reads a show's occupancy aloud: "37% sold, 2% held, 120 of 199 seats free".
func OccupancyLabel(s *ShowOccupancy) string {
	return Percent(s.SoldPercent) + " sold, " + Percent(s.HeldPercent) + " held, " +
		strconv.Itoa(s.Free) + " of " + Plural(s.Sellable, "seat", "seats") + " free"
}

// RevenueTotal formats a revenue's totals: one amount per currency joined with " + ",
// or zero in currency when nothing was paid.
func RevenueTotal(r *Revenue, currency string) string {
	if r == nil || len(r.Totals) == 0 {
		return Money(0, currency)
	}
	out := ""
	for i, t := range r.Totals {
		if i > 0 {
			out += " + "
		}
		out += Money(t.AmountMinor, t.Currency)
	}
	return out
}

// RevenueOrders is the number of paid orders of a revenue, all currencies together.
func RevenueOrders(r *Revenue) int {
	n := 0
	if r != nil {
		for _, t := range r.Totals {
			n += t.Orders
		}
	}
	return n
}

// RevenueRange names a revenue's range in the page's zone: "Mon 30 Nov" for a day,
// "Mon 30 Nov – Sun 6 Dec" for longer ranges; summed over cinemas in several zones, it
// adds that each took its own local day or week.
func RevenueRange(r *Revenue, loc *time.Location) string {
	from := inZone(r.From, loc)
	last := inZone(r.To.Add(-time.Nanosecond), loc)
	out := from.Format("Mon 2 Jan")
	if from.Format(time.DateOnly) != last.Format(time.DateOnly) {
		out += " – " + last.Format("Mon 2 Jan")
	}
	if r.EachLocal {
		out += " (each cinema's local time)"
	}
	return out
}

// SoldToday is the number of seats sold (paid) for today's shows, and of sellable seats.
func SoldToday(shows []*ShowOccupancy) (sold, sellable int) {
	for _, s := range shows {
		sold += s.Sold
		sellable += s.Sellable
	}
	return sold, sellable
}

// PendingDeadline says when a pending order's deadline is: "19:45 (in 14 minutes)", or
// "19:30 (overdue)" once it has passed.
func PendingDeadline(o *PendingOrder, now time.Time, loc *time.Location) string {
	at := ClockTime(o.ExpiresAt, loc)
	if inZone(o.ExpiresAt, loc).Format(time.DateOnly) != inZone(now, loc).Format(time.DateOnly) {
		at = DayTime(o.ExpiresAt, loc)
	}
	if !now.Before(o.ExpiresAt) {
		return at + " (overdue)"
	}
	return at + " (" + Until(o.ExpiresAt.Sub(now)) + ")"
}

// TaskWhen is when an expiry task runs next in the cinema's zone with seconds: "19:45:05"
// on the local day of now, else with the day; "—" for none (an archived task).
func TaskWhen(t, now time.Time, loc *time.Location) string {
	if t.IsZero() {
		return "—"
	}
	if inZone(t, loc).Format(time.DateOnly) == inZone(now, loc).Format(time.DateOnly) {
		return inZone(t, loc).Format("15:04:05")
	}
	return RunTime(t, loc)
}

// TaskRetries is "2 of 8" retries.
func TaskRetries(t ExpiryTask) string {
	return strconv.Itoa(t.Retried) + " of " + strconv.Itoa(t.MaxRetry)
}

// ExpiryList is one list of the expiry queue panel.
type ExpiryList struct {
	ID, Title string
	Count     int
	Tasks     []ExpiryTask
}

// ExpiryLists are the expiry queue's scheduled, retry and archived lists, in that order.
func ExpiryLists(s *ExpiryQueueState) []ExpiryList {
	return []ExpiryList{
		{"expiry-scheduled", "Scheduled", s.Scheduled, s.ScheduledTasks},
		{"expiry-retry", "Waiting for a retry", s.Retry, s.RetryTasks},
		{"expiry-archived", "Archived (gave up)", s.Archived, s.ArchivedTasks},
	}
}

// LocOr is the zone the show's times are shown in: its cinema's, or fallback.
func (s *ShowOccupancy) LocOr(fallback *time.Location) *time.Location {
	if s.Zone != nil {
		return s.Zone
	}
	return fallback
}
