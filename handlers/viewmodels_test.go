package handlers

import (
	"testing"
	"time"

	"seatflow/services/catalog"
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
	if views.RoomIdleFor != time.Duration(waitingroom.IdleFor) {
		t.Errorf("views.RoomIdleFor %v, waitingroom.IdleFor %v", views.RoomIdleFor, waitingroom.IdleFor)
	}
}
