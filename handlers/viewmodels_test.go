package handlers

import (
	"testing"
	"time"

	"seatflow/services/catalog"
	"seatflow/services/demo"
	"seatflow/services/mail"
	"seatflow/services/reconcile"
	"seatflow/services/staff"
	"seatflow/services/waitingroom"
	"seatflow/services/waitlist"
	"seatflow/views"
)

// TestViewConstantsMatchServices checks that the constants views keeps for the statuses
// it shows hold the values the services use.
func TestViewConstantsMatchServices(t *testing.T) {
	for _, c := range []struct{ view, service string }{
		{views.SeatRuleOff, catalog.RuleOff}, {views.SeatRuleWarn, catalog.RuleWarn}, {views.SeatRuleEnforce, catalog.RuleEnforce},
		{views.SeatStateHouse, staff.StateHouse},
		{views.TriggerCron, reconcile.TriggerCron}, {views.TriggerCLI, reconcile.TriggerCLI},
		{views.RunRunning, reconcile.RunRunning}, {views.RunDone, reconcile.RunDone},
		{views.RunFailed, reconcile.RunFailed}, {views.RunLeaseLost, reconcile.RunLeaseLost},
		{views.MailQueued, mail.StatusQueued}, {views.MailSending, mail.StatusSending},
		{views.MailSent, mail.StatusSent}, {views.MailFailed, mail.StatusFailed},
		{views.WaitlistWaiting, waitlist.StatusWaiting}, {views.WaitlistOffered, waitlist.StatusOffered},
		{views.WaitlistAccepted, waitlist.StatusAccepted}, {views.WaitlistLapsed, waitlist.StatusLapsed},
		{views.WaitlistLeft, waitlist.StatusLeft}, {views.WaitlistClosed, waitlist.StatusClosed},
		{views.RoomStatusWaiting, waitingroom.StatusWaiting}, {views.RoomStatusAdmitted, waitingroom.StatusAdmitted},
		{views.RoomStatusClosed, waitingroom.StatusClosed}, {views.RoomClosedSoldOut, waitingroom.ClosedSoldOut},
		{views.RoomClosedSale, waitingroom.ClosedSale}, {views.RoomClosedCancelled, waitingroom.ClosedCancelled},
	} {
		if c.view != c.service {
			t.Errorf("views has %q where the service has %q", c.view, c.service)
		}
	}
	if views.ShowCleaningTime != catalog.CleaningTime {
		t.Errorf("views.ShowCleaningTime %v, catalog.CleaningTime %v", views.ShowCleaningTime, catalog.CleaningTime)
	}
	if views.MaxAdmitPerMinute != catalog.MaxAdmitPerMinute || views.DefaultAdmitPerMinute != catalog.DefaultAdmitPerMinute {
		t.Errorf("views' paces %d and %d, catalog's %d and %d", views.MaxAdmitPerMinute, views.DefaultAdmitPerMinute,
			catalog.MaxAdmitPerMinute, catalog.DefaultAdmitPerMinute)
	}
	if views.RoomIdleFor != time.Duration(waitingroom.IdleFor) {
		t.Errorf("views.RoomIdleFor %v, waitingroom.IdleFor %v", views.RoomIdleFor, waitingroom.IdleFor)
	}
}

// TestPreviewRuns: a large layout, as hallLayoutView hands it to the view, is previewed as runs of seats of one zone and kind.
func TestPreviewRuns(t *testing.T) {
	l, err := catalog.ParseLayout(demo.StadiumLayout(demo.StadiumOptions{}), catalog.NumberLeftToRight)
	if err != nil {
		t.Fatal(err)
	}
	if !views.CompactPreview(hallLayoutView(l)) {
		t.Fatal("a stadium is previewed seat by seat")
	}
	runs := views.PreviewRuns(hallLayoutView(l))
	if len(runs) > 10000 {
		t.Errorf("%d runs", len(runs))
	}
	if r := runs[0]; r.Title != "A1–A25 · Standard" || r.Style != "grid-row:1;grid-column:1/26;" {
		t.Errorf("first run %+v", r)
	}
	small, _ := catalog.ParseLayout("SS.SS", "")
	if views.CompactPreview(hallLayoutView(small)) {
		t.Error("a small layout is previewed as runs")
	}
}
