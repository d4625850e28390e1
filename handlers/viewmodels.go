package handlers

import (
	"seatflow/jobs"
	"seatflow/services/accounts"
	"seatflow/services/audit"
	"seatflow/services/catalog"
	"seatflow/services/mail"
	"seatflow/services/orders"
	"seatflow/services/reconcile"
	"seatflow/services/seats"
	"seatflow/services/staff"
	"seatflow/services/waitingroom"
	"seatflow/services/waitlist"
	"seatflow/views"
)

// The view models: views take plain structs and import no service package, so the
// handlers copy what a service answers into them here, field by field.

// userAccountsView copies accounts for the users and roles page.
func userAccountsView(in []*accounts.UserAccount) []*views.UserAccount {
	out := make([]*views.UserAccount, len(in))
	for i, u := range in {
		out[i] = &views.UserAccount{ID: u.ID, Email: u.Email, Name: u.Name, Role: u.Role, CreatedAt: u.CreatedAt, CinemaIDs: u.CinemaIDs}
	}
	return out
}

// auditEntryView copies one audit entry for the console.
func auditEntryView(e *audit.AuditEntry) *views.AuditEntry {
	return &views.AuditEntry{ID: e.ID, ActorID: e.ActorID, ActorEmail: e.ActorEmail, Action: e.Action, Entity: e.Entity,
		EntityID: e.EntityID, Before: e.Before, After: e.After, CreatedAt: e.CreatedAt}
}

// auditEntriesView copies audit entries for the console.
func auditEntriesView(in []*audit.AuditEntry) []*views.AuditEntry {
	out := make([]*views.AuditEntry, len(in))
	for i, e := range in {
		out[i] = auditEntryView(e)
	}
	return out
}

// paymentView copies a payment for the pages (nil stays nil).
func paymentView(p *orders.Payment) *views.Payment {
	if p == nil {
		return nil
	}
	v := paymentValue(p)
	return &v
}

// paymentValue copies a payment's fields.
func paymentValue(p *orders.Payment) views.Payment {
	return views.Payment{ID: p.ID, PaymentID: p.PaymentID, OrderID: p.OrderID, Provider: p.Provider, AmountMinor: p.AmountMinor,
		RefundedMinor: p.RefundedMinor, Currency: p.Currency, Status: p.Status, CreatedAt: p.CreatedAt, OrderNo: p.OrderNo}
}

// staffOrderView copies an order found for staff (nil stays nil).
func staffOrderView(o *staff.StaffOrder) *views.StaffOrder {
	if o == nil {
		return nil
	}
	return &views.StaffOrder{Order: o.Order, UserEmail: o.UserEmail, SoldByEmail: o.SoldByEmail}
}

// orderDetailView copies one order's detail for the console's order page.
func orderDetailView(d *staff.OrderDetail) *views.OrderDetail {
	out := &views.OrderDetail{StaffOrder: staffOrderView(d.StaffOrder), Payments: make([]*views.OrderPayment, len(d.Payments)),
		History: auditEntriesView(d.History)}
	for i, p := range d.Payments {
		out.Payments[i] = &views.OrderPayment{Payment: paymentValue(&p.Payment), UpdatedAt: p.UpdatedAt}
	}
	for _, r := range d.Refunds {
		out.Refunds = append(out.Refunds, views.RefundItem{AmountMinor: r.AmountMinor, Currency: r.Currency, At: r.At,
			Who: r.ActorEmail, Reason: r.Reason, Seats: r.Seats})
	}
	return out
}

// reconcileRunView copies a reconciliation run for the console (nil stays nil); Kinds
// and Duration are the run's CountsByKind and Duration.
func reconcileRunView(r *reconcile.ReconcileRun) *views.ReconcileRun {
	if r == nil {
		return nil
	}
	out := &views.ReconcileRun{ID: r.ID, Trigger: r.Trigger, DryRun: r.DryRun, ActorID: r.ActorID, ActorEmail: r.ActorEmail,
		ShowID: r.ShowID, Status: r.Status, Error: r.Error, ShowsChecked: r.ShowsChecked, FindingsCount: r.FindingsCount,
		Fixed: r.Fixed, StartedAt: r.StartedAt, FinishedAt: r.FinishedAt, Duration: r.Duration(), Kinds: r.CountsByKind()}
	if r.Findings != nil {
		out.Findings = make([]views.Finding, len(r.Findings))
		for i, f := range r.Findings {
			out.Findings[i] = views.Finding{Kind: f.Kind, ShowID: f.ShowID, SeatID: f.SeatID, OrderNo: f.OrderNo,
				Action: f.Action, Fixed: f.Fixed, Detail: f.Detail}
		}
	}
	return out
}

// reconcileRunsView copies reconciliation runs for the console.
func reconcileRunsView(in []*reconcile.ReconcileRun) []*views.ReconcileRun {
	out := make([]*views.ReconcileRun, len(in))
	for i, r := range in {
		out[i] = reconcileRunView(r)
	}
	return out
}

// dashboardSnapshotView copies the dashboard's figures; each show's Free, SoldPercent
// and HeldPercent are its ShowOccupancy methods'.
func dashboardSnapshotView(s *staff.DashboardSnapshot) *views.DashboardSnapshot {
	if s == nil {
		return nil
	}
	out := &views.DashboardSnapshot{Now: s.Now, Zone: s.Zone, RevenueToday: revenueView(s.RevenueToday),
		RevenueWeek: revenueView(s.RevenueWeek)}
	if s.TodayShows != nil {
		out.TodayShows = make([]*views.ShowOccupancy, len(s.TodayShows))
		for i, sh := range s.TodayShows {
			out.TodayShows[i] = &views.ShowOccupancy{ShowID: sh.ShowID, StartsAt: sh.StartsAt, MovieTitle: sh.MovieTitle,
				HallID: sh.HallID, HallName: sh.HallName, Zone: sh.Loc(), Status: sh.Status, SaleOpensAt: sh.SaleOpensAt,
				SaleClosesAt: sh.SaleClosesAt, Sellable: sh.Sellable, Sold: sh.Sold, Held: sh.Held, Free: sh.Free(),
				SoldPercent: sh.SoldPercent(), HeldPercent: sh.HeldPercent()}
		}
	}
	for _, ch := range s.Channels {
		out.Channels = append(out.Channels, views.ChannelSales{Key: ch.Key, Label: ch.Label, Currency: ch.Currency,
			Orders: ch.Orders, Seats: ch.Seats, NetMinor: ch.NetMinor})
	}
	if s.Minutes != nil {
		out.Minutes = make([]views.MinuteCount, len(s.Minutes))
		for i, m := range s.Minutes {
			out.Minutes[i] = views.MinuteCount{Start: m.Start, Created: m.Created, Paid: m.Paid}
		}
	}
	if p := s.Pending; p != nil {
		out.Pending = &views.PendingOrders{Count: p.Count, Overdue: p.Overdue}
		if p.Oldest != nil {
			out.Pending.Oldest = make([]*views.PendingOrder, len(p.Oldest))
			for i, o := range p.Oldest {
				out.Pending.Oldest[i] = &views.PendingOrder{OrderNo: o.OrderNo, ShowID: o.ShowID, MovieTitle: o.MovieTitle,
					UserEmail: o.UserEmail, Seats: o.Seats, TotalMinor: o.TotalMinor, Currency: o.Currency,
					CreatedAt: o.CreatedAt, ExpiresAt: o.ExpiresAt}
			}
		}
	}
	return out
}

// revenueView copies a revenue (nil stays nil).
func revenueView(r *staff.Revenue) *views.Revenue {
	if r == nil {
		return nil
	}
	return &views.Revenue{From: r.From, To: r.To, EachLocal: r.EachLocal, Totals: revenueLinesView(r.Totals), ByMovie: revenueLinesView(r.ByMovie),
		ByHall: revenueLinesView(r.ByHall)}
}

// revenueLinesView copies revenue lines (nil stays nil).
func revenueLinesView(in []*staff.RevenueLine) []*views.RevenueLine {
	if in == nil {
		return nil
	}
	out := make([]*views.RevenueLine, len(in))
	for i, l := range in {
		out[i] = &views.RevenueLine{ID: l.ID, Name: l.Name, Currency: l.Currency, Orders: l.Orders, Seats: l.Seats,
			AmountMinor: l.AmountMinor}
	}
	return out
}

// expiryQueueView copies the expiry queue's state (nil stays nil).
func expiryQueueView(s *jobs.ExpiryQueueState) *views.ExpiryQueueState {
	if s == nil {
		return nil
	}
	return &views.ExpiryQueueState{Pending: s.Pending, Active: s.Active, Scheduled: s.Scheduled, Retry: s.Retry,
		Archived: s.Archived, Processed: s.Processed, Failed: s.Failed, ScheduledTasks: expiryTasksView(s.ScheduledTasks),
		RetryTasks: expiryTasksView(s.RetryTasks), ArchivedTasks: expiryTasksView(s.ArchivedTasks)}
}

// expiryTasksView copies expiry tasks (nil stays nil).
func expiryTasksView(in []jobs.ExpiryTask) []views.ExpiryTask {
	if in == nil {
		return nil
	}
	out := make([]views.ExpiryTask, len(in))
	for i, t := range in {
		out[i] = views.ExpiryTask{TaskID: t.TaskID, OrderNo: t.OrderNo, NextRunAt: t.NextRunAt, Retried: t.Retried,
			MaxRetry: t.MaxRetry, LastError: t.LastError, LastFailedAt: t.LastFailedAt}
	}
	return out
}

// mailRowView copies an outbox row for the mailbox (nil stays nil).
func mailRowView(r *mail.Row) *views.MailRow {
	if r == nil {
		return nil
	}
	return &views.MailRow{ID: r.ID, Kind: string(r.Kind), UserID: r.UserID, To: r.To, Lang: r.Lang, OrderNo: r.OrderNo,
		ShowID: r.ShowID, Status: r.Status, Attempts: r.Attempts, LastError: r.LastError, NextAttemptAt: r.NextAttemptAt,
		CreatedAt: r.CreatedAt, SentAt: r.SentAt}
}

// mailRowsView copies outbox rows for the mailbox.
func mailRowsView(in []*mail.Row) []*views.MailRow {
	out := make([]*views.MailRow, len(in))
	for i, r := range in {
		out[i] = mailRowView(r)
	}
	return out
}

// mailRenderedView copies a rendered e-mail (nil stays nil).
func mailRenderedView(r *mail.Rendered) *views.MailRendered {
	if r == nil {
		return nil
	}
	out := &views.MailRendered{Subject: r.Subject, Text: r.Text, HTML: r.HTML}
	if r.Images != nil {
		out.Images = make([]views.MailImage, len(r.Images))
		for i, img := range r.Images {
			out.Images[i] = views.MailImage(img)
		}
	}
	return out
}

// waitlistEntryView copies a place on a waiting list (nil stays nil).
func waitlistEntryView(e *waitlist.Entry) *views.WaitlistEntry {
	if e == nil {
		return nil
	}
	return &views.WaitlistEntry{ID: e.ID, ShowID: e.ShowID, UserID: e.UserID, UserEmail: e.UserEmail, Quantity: e.Quantity,
		Zone: e.Zone, Status: e.Status, OrderNo: e.OrderNo, OrderStatus: e.OrderStatus, OfferExpiresAt: e.OfferExpiresAt,
		CreatedAt: e.CreatedAt, Position: e.Position}
}

// waitlistEntriesView copies a show's waiting list (nil stays nil).
func waitlistEntriesView(in []*waitlist.Entry) []*views.WaitlistEntry {
	if in == nil {
		return nil
	}
	out := make([]*views.WaitlistEntry, len(in))
	for i, e := range in {
		out[i] = waitlistEntryView(e)
	}
	return out
}

// queueEntryView copies a waiting room entry for the waiting page (nil stays nil).
func queueEntryView(e *waitingroom.Entry) *views.QueueEntry {
	if e == nil {
		return nil
	}
	return &views.QueueEntry{Status: e.Status, Position: e.Position, FirstPosition: e.FirstPosition, Waiting: e.Waiting,
		Wait: views.QueueEstimate(e.Wait), Closed: e.Closed, Opened: e.Opened}
}

// roomStatsView copies a waiting room's figures for the console.
func roomStatsView(s waitingroom.Stats) *views.RoomStats {
	v := views.RoomStats(s)
	return &v
}

// seatMapView is a show's seat map for the pages (nil stays nil); it shares the show,
// the hall and the maps with m.
func seatMapView(m *seats.SeatMap) *views.ShowSeatMap {
	if m == nil {
		return nil
	}
	return &views.ShowSeatMap{Show: m.Show, Hall: m.Hall, States: m.States, Owners: m.Owners, Partial: m.Partial, Owned: m.Owned}
}

// staffSeatMapView copies a show's seat map for staff; it shares the show and the hall
// with m.
func staffSeatMapView(m *staff.StaffSeatMap) *views.StaffSeatMap {
	out := &views.StaffSeatMap{Show: m.Show, Hall: m.Hall, Counts: m.Counts, Editable: m.Editable}
	if m.Seats != nil {
		out.Seats = make([]views.StaffSeat, len(m.Seats))
		for i, s := range m.Seats {
			out.Seats[i] = views.StaffSeat(s)
		}
	}
	return out
}

// movieSummaryView copies a movie for the console.
func movieSummaryView(m *catalog.MovieSummary) *views.MovieSummary {
	return &views.MovieSummary{Movie: m.Movie, RetiredAt: m.RetiredAt, UpcomingShows: m.UpcomingShows}
}

// movieSummariesView copies movies for the console.
func movieSummariesView(in []*catalog.MovieSummary) []*views.MovieSummary {
	out := make([]*views.MovieSummary, len(in))
	for i, m := range in {
		out[i] = movieSummaryView(m)
	}
	return out
}

// hallSummaryView copies a hall for the new-show form (nil stays nil).
func hallSummaryView(h *catalog.HallSummary) *views.HallSummary {
	if h == nil {
		return nil
	}
	v := views.HallSummary(*h)
	return &v
}

// hallSummariesView copies halls for the new-show form.
func hallSummariesView(in []*catalog.HallSummary) []*views.HallSummary {
	out := make([]*views.HallSummary, len(in))
	for i, h := range in {
		out[i] = hallSummaryView(h)
	}
	return out
}

// seatCountsView copies the seat counts of shows, by show id.
func seatCountsView(in map[int64]catalog.SeatCounts) map[int64]views.SeatCounts {
	out := make(map[int64]views.SeatCounts, len(in))
	for id, n := range in {
		out[id] = views.SeatCounts(n)
	}
	return out
}

// dayResultsView copies the days of a repeated show (nil stays nil).
func dayResultsView(in []catalog.DayResult) []views.DayResult {
	if in == nil {
		return nil
	}
	out := make([]views.DayResult, len(in))
	for i, r := range in {
		out[i] = views.DayResult(r)
	}
	return out
}

// hallLayoutView is a parsed layout for its preview: each seat with its zone's name,
// and the zones it uses (in catalog.LayoutZones order) with their sellable seats.
func hallLayoutView(l *catalog.Layout) *views.HallLayout {
	n, blocked := l.ZoneCounts()
	out := &views.HallLayout{Rows: l.Rows, Cols: l.Cols, Blocked: blocked, Seats: make([]views.LayoutSeat, len(l.Seats))}
	for _, z := range catalog.LayoutZones {
		if n[z.Code] > 0 {
			out.Zones = append(out.Zones, views.ZoneCount{Code: z.Code, Name: z.Name, Seats: n[z.Code]})
			out.Total += n[z.Code]
		}
	}
	for i, s := range l.Seats {
		out.Seats[i] = views.LayoutSeat{Row: s.Row, Col: s.Col, RowLabel: s.RowLabel, Number: s.Number, Label: s.Label,
			Kind: s.Kind, Zone: s.Zone, ZoneName: catalog.ZoneName(s.Zone)}
	}
	return out
}

// layoutProblemsView is each problem of a layout as a sentence.
func layoutProblemsView(in []catalog.LayoutProblem) []string {
	out := make([]string, len(in))
	for i, p := range in {
		out[i] = p.String()
	}
	return out
}

// layoutLegendView is the legend of the layout characters.
func layoutLegendView() []views.LayoutCell {
	out := make([]views.LayoutCell, len(catalog.LayoutCells))
	for i, c := range catalog.LayoutCells {
		out[i] = views.LayoutCell{Char: c.Char, Name: c.Name, ZoneName: catalog.ZoneName(c.Zone)}
	}
	return out
}
